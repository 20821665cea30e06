import { bodyOfPieces, type OutgoingBody } from './body-pieces.js';
import { indexSpan, type MemberSpan, type ValueSpan } from './json-spans.js';
import type { WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;

/** Replace `[start, end)` of the body with `text` (strings are encoded, bytes kept as they are). */
interface Edit {
  start: number;
  end: number;
  text: string | Array<string | Uint8Array>;
}

const encoder = new TextEncoder();

/**
 * Levels of the body `spliceCacheFields` needs indexed: the body's members and the messages'
 * spans; it indexes the tools, the system prompt and the messages it edits itself.
 */
export const SPLICE_INDEX_DEPTH = 1;

/**
 * The client's bytes with the plan's cache fields edited in, every other byte as sent (big
 * numbers, duplicate keys, invalid UTF-8, whitespace, key order). `planned` is what
 * `planCacheFields` made of the parsed body: its breakpoint paths, diagnostics and OpenAI keys
 * are carried over; every `cache_control` the client placed on a markable block or the body is
 * removed. A string `system` or message content that receives a marker becomes one text block
 * holding the original string's bytes. The result is `bytes` itself when nothing is edited, else
 * pieces (views of `bytes` between the edits, and the edits' bytes), never joined here (see
 * `BodyPieces`). Throws when the spans and the plan disagree (the caller then forwards the body
 * unchanged).
 */
export function spliceCacheFields(
  route: WireRoute,
  bytes: Uint8Array,
  root: ValueSpan,
  client: JsonRecord,
  planned: { body: JsonRecord; breakpoints: readonly string[]; clientMarkedMessages?: readonly number[] },
): OutgoingBody {
  const edits: Edit[] = [];
  const changed = (key: string) => planned.body[key] !== client[key];
  if (route === 'anthropic') {
    const chosen = markersOf(planned);
    const objectEdits = new Map<ValueSpan, { remove: string; set?: string }>();
    objectEdits.set(root, { remove: 'cache_control' });
    const visitBlock = (block: ValueSpan, path: string) => {
      const marker = chosen.get(path);
      if (block.kind === 'object') {
        objectEdits.set(block, marker ? { remove: 'cache_control', set: marker } : { remove: 'cache_control' });
      } else if (block.kind === 'string' && marker) {
        const original = bytes.subarray(block.start, block.end);
        edits.push({
          start: block.start,
          end: block.end,
          text: ['[{"type":"text","text":', original, `,"cache_control":${marker}}]`],
        });
      }
    };
    // Only the values edited are indexed (their blocks' members): a long history is spanned message by message, not block by block.
    const within = (span: ValueSpan | undefined, depth: number) => (span ? indexSpan(bytes, span, depth) : undefined);
    const tools = within(lastMember(root, 'tools')?.value, 1);
    for (const [index, tool] of (tools?.items ?? []).entries()) visitBlock(tool, `tools[${index}]`);
    const system = within(lastMember(root, 'system')?.value, 1);
    if (system?.kind === 'string') visitBlock(system, 'system[0]');
    for (const [index, block] of (system?.items ?? []).entries()) visitBlock(block, `system[${index}]`);
    const messages = lastMember(root, 'messages')?.value.items ?? [];
    for (const messageIndex of editedMessages(client, planned.breakpoints, planned.clientMarkedMessages)) {
      const message = messages[messageIndex];
      if (!message) throw new Error(`message ${messageIndex} was not spanned`);
      const content = lastMember(indexSpan(bytes, message, 2), 'content')?.value;
      if (content?.kind === 'string') visitBlock(content, `messages[${messageIndex}].content[0]`);
      for (const [index, block] of (content?.items ?? []).entries()) {
        visitBlock(block, `messages[${messageIndex}].content[${index}]`);
      }
    }
    for (const [span, edit] of objectEdits) {
      const set: Record<string, string> = {};
      if (span === root && changed('diagnostics')) set.diagnostics = JSON.stringify(planned.body.diagnostics);
      if (edit.set) set.cache_control = edit.set;
      // Most blocks have nothing to remove or set: no edit list for them (an unindexed one still throws below).
      const untouched = span.members?.every((member) => member.key !== edit.remove) && Object.keys(set).length === 0;
      if (!untouched) edits.push(...memberEdits(span, edit.remove, set));
    }
  } else {
    const set: Record<string, string> = {};
    for (const key of ['prompt_cache_key', 'prompt_cache_retention']) {
      if (changed(key)) set[key] = JSON.stringify(planned.body[key]);
    }
    edits.push(...memberEdits(root, null, set));
  }
  return applyEdits(bytes, edits);
}

/**
 * Indexes of the messages the splice edits, in order: those holding a block the client marked
 * (its `cache_control` goes; the parsed body has the member exactly when the bytes do) and those
 * the plan marks. `clientMarked`: the first ones as the plan's scan found them (else every
 * message is read here).
 */
function editedMessages(client: JsonRecord, breakpoints: readonly string[], clientMarked?: readonly number[]): number[] {
  const edited = new Set<number>(clientMarked);
  const messages = Array.isArray(client.messages) && !clientMarked ? client.messages : [];
  for (let index = 0; index < messages.length; index++) {
    const content = (messages[index] as JsonRecord | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (typeof block === 'object' && block !== null && Object.hasOwn(block, 'cache_control')) {
        edited.add(index);
        break;
      }
    }
  }
  for (const path of breakpoints) {
    const message = /^messages\[(\d+)\]/.exec(path);
    if (message) edited.add(Number(message[1]));
  }
  return [...edited].sort((left, right) => left - right);
}

/** The markers the plan placed (5 minutes or 1 hour), as JSON text by path. */
function markersOf(planned: { body: JsonRecord; breakpoints: readonly string[] }): Map<string, string> {
  const markers = new Map<string, string>();
  for (const path of planned.breakpoints) {
    let value: unknown = planned.body;
    for (const step of path.match(/[a-z_]+|\d+/g) ?? []) value = (value as Record<string, unknown> | undefined)?.[step];
    const marker = (value as JsonRecord | undefined)?.cache_control;
    if (marker === undefined) throw new Error(`the plan has no marker at ${path}`);
    markers.set(path, JSON.stringify(marker));
  }
  return markers;
}

function lastMember(span: ValueSpan | undefined, key: string): MemberSpan | undefined {
  return span?.members?.findLast((member) => member.key === key);
}

/**
 * Edits of one object: every member named `remove` goes (with its separator), then each `set`
 * key gets its value: the last occurrence's value replaced (earlier duplicates, which JSON
 * readers ignore, stay), or a member added at the end.
 */
function memberEdits(span: ValueSpan, remove: string | null, set: Record<string, string>): Edit[] {
  const members = span.members;
  if (!members) throw new Error('an object the plan edits was not indexed');
  const edits: Edit[] = [];
  const setKeys = Object.keys(set);
  const kept: boolean[] = members.map((member) => member.key !== remove);
  for (const key of setKeys) {
    if (key !== remove) continue;
    // The key removed and set again: its last occurrence stays, with the new value.
    const last = members.findLastIndex((member) => member.key === key);
    if (last >= 0) kept[last] = true;
  }
  const lastKept = kept.lastIndexOf(true);
  for (let index = 0; index < members.length; index++) {
    if (kept[index]) continue;
    const member = members[index]!;
    if (index < lastKept) {
      // Up to the next member's key: the member and its comma.
      edits.push({ start: member.keyStart, end: members[index + 1]!.keyStart, text: '' });
    } else if (lastKept >= 0) {
      // Trailing members: from the last kept value's end (its comma included), once.
      edits.push({ start: members[lastKept]!.value.end, end: members.at(-1)!.value.end, text: '' });
      break;
    } else {
      edits.push({ start: members[0]!.keyStart, end: members.at(-1)!.value.end, text: '' });
      break;
    }
  }
  const insertAt = lastKept >= 0 ? members[lastKept]!.value.end : members.length > 0 ? members.at(-1)!.value.end : span.start + 1;
  let separator = lastKept >= 0;
  for (const key of setKeys) {
    const existing = members.findLast((member) => member.key === key);
    if (existing) {
      edits.push({ start: existing.value.start, end: existing.value.end, text: set[key]! });
      continue;
    }
    edits.push({ start: insertAt, end: insertAt, text: `${separator ? ',' : ''}${JSON.stringify(key)}:${set[key]}` });
    separator = true;
  }
  return edits;
}

function applyEdits(bytes: Uint8Array, edits: Edit[]): OutgoingBody {
  if (edits.length === 0) return bytes;
  edits.sort((first, second) => first.start - second.start || first.end - second.end);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) throw new Error(`overlapping edits at byte ${edit.start}`);
    parts.push(bytes.subarray(at, edit.start));
    for (const piece of typeof edit.text === 'string' ? [edit.text] : edit.text) {
      parts.push(typeof piece === 'string' ? encoder.encode(piece) : piece);
    }
    at = edit.end;
  }
  parts.push(bytes.subarray(at));
  return bodyOfPieces(parts.filter((part) => part.byteLength > 0));
}
