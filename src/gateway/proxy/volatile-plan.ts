import { volatileMovedPayload, wireHistoryTokens } from '../../cache/break/volatile-moved-payload.js';
import { createVolatileSystemTracker, type VolatileSystemTracker } from '../../cache/break/volatile-system.js';
import type { VolatileMovedPayload } from '../../events/catalog.js';
import { sha256 } from '../../model/hash.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import type { ValueSpan } from './json-spans.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);
const encoder = new TextEncoder();

/** What one conversation remembers for `--volatile auto`. */
export interface ProxyVolatileState {
  tracker: VolatileSystemTracker;
  /** Texts written into each turn's opening user message, by the opener's identity. */
  persisted: Map<string, string[]>;
  /** The moved keys of the previous request: `volatile.moved` is published when they change. */
  previousKeys: string;
}

export function createProxyVolatileState(): ProxyVolatileState {
  return { tracker: createVolatileSystemTracker(), persisted: new Map(), previousKeys: '' };
}

/**
 * `cachet proxy --plan --volatile auto` for one Anthropic body, on its bytes: the system prompt's
 * per-turn paragraphs (see `createVolatileSystemTracker`) are cut out of the system value and
 * written, as text blocks, at the end of the user message that opened their turn, and repeated
 * there at every later request of the conversation (a turn-scoped tail). A paragraph that changed
 * within a turn goes after the last user message of that request only (not after an assistant
 * prefill). Every other byte stays as the client sent it; the system value is re-serialised.
 * Returns the new bytes and, when what moved changed since the previous request, the
 * `volatile.moved` payload (as the drop-ins publish it); null when nothing moved. Throws on a
 * body it cannot read (the caller forwards the body unchanged).
 */
export function spliceVolatileSystem(
  bytes: Uint8Array,
  root: ValueSpan,
  body: JsonRecord,
  state: ProxyVolatileState,
): { bytes: Uint8Array; moved: number; event: VolatileMovedPayload | null } | null {
  const system = body.system;
  const texts = typeof system === 'string' ? [system] : Array.isArray(system) ? system.map((block) => textOf(block)) : [];
  if (texts.length === 0) return null;
  const split = state.tracker.split(texts);
  const keys = split.moved.map((entry) => entry.key).join('\n');
  const changedKeys = keys !== state.previousKeys;
  state.previousKeys = keys;
  if (split.moved.length === 0) return null;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const openers = openerKeys(messages);
  const event = changedKeys ? movedEvent(split.moved, texts, messages, openers) : null;
  const currentOpener = openers.findLast((key) => key !== null) ?? null;
  const movedTexts = split.moved.map((entry) => entry.text);
  if (currentOpener && !state.persisted.has(currentOpener)) state.persisted.set(currentOpener, movedTexts);
  const persistedNow = currentOpener ? (state.persisted.get(currentOpener) ?? []) : [];
  const requestTexts = movedTexts.filter((text) => !persistedNow.includes(text));
  const edits: Array<{ start: number; end: number; text: string | Uint8Array[] }> = [];
  const systemSpan = root.members?.findLast((member) => member.key === 'system')?.value;
  if (!systemSpan) throw new Error('the system value was not indexed');
  edits.push({ start: systemSpan.start, end: systemSpan.end, text: JSON.stringify(newSystem(system, split.texts)) });
  const messageSpans = root.members?.findLast((member) => member.key === 'messages')?.value.items ?? [];
  const lastUser = messages.length - 1;
  messages.forEach((message, index) => {
    const key = openers[index];
    const appended = [...(key ? (state.persisted.get(key) ?? []) : [])];
    if (index === lastUser && isRecord(message) && message.role === 'user') appended.push(...requestTexts);
    if (appended.length === 0) return;
    const content = messageSpans[index]?.members?.findLast((member) => member.key === 'content')?.value;
    if (!content) throw new Error(`messages[${index}].content was not indexed`);
    const blocks = appended.map((text) => JSON.stringify({ type: 'text', text })).join(',');
    if (content.kind === 'string') {
      const original = bytes.subarray(content.start, content.end);
      edits.push({
        start: content.start,
        end: content.end,
        text: [encoder.encode('[{"type":"text","text":'), original, encoder.encode(`},${blocks}]`)],
      });
    } else if (content.kind === 'array') {
      const separator = (content.items?.length ?? 0) > 0 ? ',' : '';
      edits.push({ start: content.end - 1, end: content.end - 1, text: `${separator}${blocks}` });
    } else throw new Error(`messages[${index}].content is neither text nor blocks`);
  });
  return { bytes: applyEdits(bytes, edits), moved: split.moved.length, event };
}

/** The `volatile.moved` payload: turn = turn-opening user messages, step = assistant messages since the last one. */
function movedEvent(
  moved: Parameters<typeof volatileMovedPayload>[0],
  texts: readonly string[],
  messages: readonly unknown[],
  openers: ReadonlyArray<string | null>,
): VolatileMovedPayload {
  const lastOpener = openers.findLastIndex((key) => key !== null);
  // A final assistant message is a prefill this request continues, not an earlier step.
  const end = isRecord(messages.at(-1)) && (messages.at(-1) as JsonRecord).role === 'assistant' ? -1 : undefined;
  const step = messages.slice(lastOpener + 1, end).filter((message) => isRecord(message) && message.role === 'assistant').length;
  const turn = openers.filter((key) => key !== null).length;
  // History before this request's own new messages: what a broken prefix would have re-written.
  const history = messages.slice(0, Math.max(0, lastOpener));
  const counter = anthropicEstimator();
  const payload = volatileMovedPayload(moved, texts, counter, () => wireHistoryTokens(history, counter));
  return { turn, step, ...payload };
}

function textOf(block: unknown): string {
  if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') {
    throw new Error('a system block is not text');
  }
  return block.text;
}

function newSystem(system: unknown, texts: readonly string[]): unknown {
  if (typeof system === 'string') return texts[0] ?? '';
  return (system as JsonRecord[]).flatMap((block, index) => (texts[index] ? [{ ...block, text: texts[index] }] : []));
}

/** Identity of each user message that opens a turn (not only tool results): content hash and ordinal; null for others. */
function openerKeys(messages: readonly unknown[]): Array<string | null> {
  const seen = new Map<string, number>();
  return messages.map((message) => {
    if (!isRecord(message) || message.role !== 'user') return null;
    const content = message.content;
    if (Array.isArray(content) && content.every((block) => isRecord(block) && block.type === 'tool_result')) return null;
    const bare = Array.isArray(content)
      ? content.map((block) => (isRecord(block) ? { ...block, cache_control: undefined } : block))
      : content;
    const hash = sha256(JSON.stringify(bare ?? null)).slice(0, 32);
    const count = seen.get(hash) ?? 0;
    seen.set(hash, count + 1);
    return `${hash}#${count}`;
  });
}

function applyEdits(bytes: Uint8Array, edits: Array<{ start: number; end: number; text: string | Uint8Array[] }>): Uint8Array {
  edits.sort((first, second) => first.start - second.start);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const edit of edits) {
    parts.push(bytes.subarray(at, edit.start));
    for (const piece of typeof edit.text === 'string' ? [encoder.encode(edit.text)] : edit.text) parts.push(piece);
    at = edit.end;
  }
  parts.push(bytes.subarray(at));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
