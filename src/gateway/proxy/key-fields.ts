import { jsonSpans, type ValueSpan } from './json-spans.js';
import { opensTurnFromSpans } from './turn-start.js';

type JsonRecord = Record<string, unknown>;
const decoder = new TextDecoder();
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the record stage reads from a body it does not otherwise need: its model and what `conversationKey` reads. */
export interface KeyFields {
  /** The top-level `model` when it is a string, else ''. */
  model: string;
  /**
   * A stand-in for the body with only what `conversationKey` reads (`metadata`, `prompt_cache_key`,
   * the `messages` or `input` items up to the first that is not a system item, then `system` and
   * `instructions` parsed only if read): the same key as the whole body gives.
   */
  keyBody: JsonRecord;
  /** Whether the body opens a new turn (`opensTurn`), read from its last message's spans. */
  opensTurn: boolean;
}

/**
 * A pass-through body's model and conversation-key fields from its value spans, parsing only
 * those values (a 500 KB body costs a scan of its structure, not a `JSON.parse` of its text).
 * Null when the bytes cannot be spanned (not one JSON object, nested too deep): then parse it whole.
 *
 * @example
 * keyFieldsOf(bytes)?.model; // 'claude-sonnet-5'
 */
export function keyFieldsOf(bytes: Uint8Array): KeyFields | null {
  const root = jsonSpans(bytes, 1);
  return typeof root === 'string' ? null : keyFieldsFromSpans(bytes, root);
}

/** `keyFieldsOf` from the body's spans (its members and their items indexed, as `jsonSpans(bytes, 1)` gives). */
export function keyFieldsFromSpans(bytes: Uint8Array, root: ValueSpan): KeyFields | null {
  // JSON.parse keeps the last of duplicate keys: so does this.
  const members = new Map<string, ValueSpan>();
  for (const member of root.members ?? []) members.set(member.key, member.value);
  const parse = (span: ValueSpan | undefined): unknown =>
    span === undefined ? undefined : JSON.parse(decoder.decode(bytes.subarray(span.start, span.end)));
  try {
    const model = parse(members.get('model'));
    const keyBody: JsonRecord = {};
    for (const name of ['metadata', 'prompt_cache_key']) {
      if (members.has(name)) keyBody[name] = parse(members.get(name));
    }
    for (const name of ['messages', 'input']) {
      const span = members.get(name);
      if (!span) continue;
      keyBody[name] = span.items ? openingItems(span.items, parse) : parse(span);
    }
    for (const name of ['system', 'instructions']) {
      if (!members.has(name)) continue;
      Object.defineProperty(keyBody, name, { enumerable: true, get: () => parse(members.get(name)) });
    }
    return { model: typeof model === 'string' ? model : '', keyBody, opensTurn: opensTurnFromSpans(bytes, members) };
  } catch {
    return null;
  }
}

/** Items parsed in order up to and including the first that is not a system or developer message. */
function openingItems(items: ValueSpan[], parse: (span: ValueSpan) => unknown): unknown[] {
  const opening: unknown[] = [];
  for (const span of items) {
    const item = parse(span);
    opening.push(item);
    if (!(isRecord(item) && (item.role === 'system' || item.role === 'developer'))) break;
  }
  return opening;
}
