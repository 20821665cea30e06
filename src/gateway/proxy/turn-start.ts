import { jsonSpans, type ValueSpan } from './json-spans.js';

type JsonRecord = Record<string, unknown>;
const decoder = new TextDecoder();
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What decides whether a request opens a turn: its last message's role, item type and content block types. */
interface LastItem {
  role: unknown;
  type: unknown;
  /** `type` of each content block when the content is an array, else empty. */
  contentTypes: unknown[];
}

/**
 * Whether a request opens a new turn: its last message is a user message that carries no tool
 * result. Anthropic: `role: 'user'` without a `tool_result` block. OpenAI Chat: `role: 'user'`
 * (a `role: 'tool'` message answers a tool call). OpenAI Responses: a string `input`, or a last
 * item with `role: 'user'` (a `function_call_output` or any other `*_output` item answers a
 * call). Anything else (tool results, an assistant prefill) continues the turn as its next step.
 * A body with no messages or items opens a turn.
 */
export function opensTurn(body: JsonRecord): boolean {
  for (const name of ['messages', 'input']) {
    const value = body[name];
    if (typeof value === 'string') return name === 'input';
    if (!Array.isArray(value)) continue;
    if (value.length === 0) return true;
    const last: unknown = value.at(-1);
    if (!isRecord(last)) return false;
    const content = last.content;
    return judge({
      role: last.role,
      type: last.type,
      contentTypes: Array.isArray(content) ? content.map((block) => (isRecord(block) ? block.type : undefined)) : [],
    });
  }
  return true;
}

/**
 * `opensTurn` from a body's spans (`messages` or `input` indexed to their items): only the last
 * item's `role`, `type` and its content blocks' `type` are parsed, never the rest of the item
 * (a tool result of 100 KB costs a scan of its structure).
 */
export function opensTurnFromSpans(bytes: Uint8Array, members: ReadonlyMap<string, ValueSpan>): boolean {
  for (const name of ['messages', 'input']) {
    const span = members.get(name);
    if (!span) continue;
    if (span.kind === 'string') return name === 'input';
    if (span.kind !== 'array' || !span.items) continue;
    const last = span.items.at(-1);
    if (!last) return true;
    if (last.kind !== 'object') return false;
    const item = jsonSpans(bytes.subarray(last.start, last.end), 2);
    if (typeof item === 'string') return false;
    const field = (value: ValueSpan | undefined, key: string): unknown => {
      const member = value?.members?.findLast((candidate) => candidate.key === key);
      return member
        ? JSON.parse(decoder.decode(bytes.subarray(last.start + member.value.start, last.start + member.value.end)))
        : undefined;
    };
    const content = item.members?.findLast((member) => member.key === 'content')?.value;
    return judge({
      role: field(item, 'role'),
      type: field(item, 'type'),
      contentTypes: content?.items ? content.items.map((block) => field(block, 'type')) : [],
    });
  }
  return true;
}

function judge(item: LastItem): boolean {
  if (typeof item.type === 'string' && item.type.endsWith('_output')) return false;
  return item.role === 'user' && !item.contentTypes.includes('tool_result');
}
