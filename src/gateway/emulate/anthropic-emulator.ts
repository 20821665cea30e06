import { normalizeWireBody } from '../../cache/wire/normalize-wire-body.js';
import { type NormalizedWireBody, unitIdentity } from '../../cache/wire/wire-unit.js';
import type { ProviderId } from '../../providers/adapter.js';
import type { EmulatorResponse } from './emulator-response.js';
import { sseEvent } from './emulator-response.js';
import type { EmulatorState, PromptFingerprint } from './emulator-state.js';
import type { ScriptedReply } from './reply-script.js';
import { validateAnthropicBody } from './validate-anthropic-body.js';

type JsonRecord = Record<string, unknown>;
/** The format the server's fingerprint compares bodies in (an Anthropic body as the API reads it). */
const FINGERPRINT_FORMAT: ProviderId = 'anthropic';
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The Messages API error body: `{ type: 'error', error: { type, message } }`. */
export function anthropicError(status: number, type: string, message: string): EmulatorResponse {
  return { type: 'error', status, body: { type: 'error', error: { type, message } } };
}

/**
 * Answer one `POST /v1/messages` as the API would: 400 for bodies it rejects, otherwise the
 * scripted (or echoed) reply with `usage` from Cachet's Anthropic cache model at `at`, and
 * `diagnostics` when the body asks for them, judged from the emulator's own memory.
 */
export function answerAnthropic(state: EmulatorState, body: unknown, at: number): EmulatorResponse {
  const problem = validateAnthropicBody(body);
  if (problem) return anthropicError(400, 'invalid_request_error', problem);
  const request = body as JsonRecord;
  // The fingerprint reads the normalisation the cache model just made: an emulator body is parsed
  // fresh, so normalising it again would walk its whole history a second time.
  let normalized: NormalizedWireBody | null = null;
  const verdict = state.anthropicCache.judge(request, {
    at,
    onNormalized: (body, format) => {
      normalized = format === FINGERPRINT_FORMAT ? body : null;
    },
  });
  if (verdict.rejected) return anthropicError(400, 'invalid_request_error', verdict.rejected);

  const reply = state.replies.next(lastUserText(request.messages as JsonRecord[]));
  const id = state.nextId('msg_emu_');
  const content = replyBlocks(state, reply);
  const outputTokens = content.reduce(
    (total, block) =>
      total + state.anthropicCounter.countText(block.type === 'text' ? String(block.text) : JSON.stringify(block.input)),
    0,
  );
  const usage = {
    input_tokens: verdict.uncachedTokens,
    cache_creation_input_tokens: verdict.cacheWriteTokens,
    cache_read_input_tokens: verdict.cacheReadTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: verdict.cacheWrite5mTokens,
      ephemeral_1h_input_tokens: verdict.cacheWrite1hTokens,
    },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
  const fingerprint = fingerprintOf(
    normalized ?? normalizeWireBody(request, FINGERPRINT_FORMAT),
    verdict.cacheReadTokens + verdict.cacheWriteTokens,
  );
  const diagnostics = isRecord(request.diagnostics)
    ? diagnose(state, request.diagnostics.previous_message_id, fingerprint, verdict.cacheReadTokens)
    : undefined;
  state.remember(id, fingerprint);
  const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
    ...(diagnostics === undefined ? {} : { diagnostics }),
  };
  if (request.stream !== true) return { type: 'json-value', body: message, headers: { 'request-id': `req_${id}` } };
  return { type: 'stream-chunks', chunks: streamChunks(message, content, usage), headers: { 'request-id': `req_${id}` } };
}

function replyBlocks(state: EmulatorState, reply: ScriptedReply): JsonRecord[] {
  const blocks: JsonRecord[] = [];
  if (reply.text !== undefined) blocks.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls ?? []) {
    blocks.push({ type: 'tool_use', id: state.nextId('toolu_emu_'), name: call.name, input: call.input });
  }
  return blocks;
}

function streamChunks(message: JsonRecord, content: JsonRecord[], usage: JsonRecord): string[] {
  const startUsage = { ...usage, output_tokens: 1 };
  const chunks = [
    sseEvent(
      { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: startUsage } },
      'message_start',
    ),
  ];
  content.forEach((block, index) => {
    const empty = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
    chunks.push(sseEvent({ type: 'content_block_start', index, content_block: empty }, 'content_block_start'));
    if (index === 0) chunks.push(sseEvent({ type: 'ping' }, 'ping'));
    const delta =
      block.type === 'text'
        ? { type: 'text_delta', text: block.text }
        : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
    chunks.push(sseEvent({ type: 'content_block_delta', index, delta }, 'content_block_delta'));
    chunks.push(sseEvent({ type: 'content_block_stop', index }, 'content_block_stop'));
  });
  chunks.push(
    sseEvent(
      {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: {
          output_tokens: usage.output_tokens,
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
        },
      },
      'message_delta',
    ),
  );
  chunks.push(sseEvent({ type: 'message_stop' }, 'message_stop'));
  return chunks;
}

function lastUserText(messages: JsonRecord[]): string {
  const last = messages.findLast((message) => message.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as JsonRecord[])
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join(' ');
}

function fingerprintOf(normalized: NormalizedWireBody, cachedTokens: number): PromptFingerprint {
  const zone = (name: string, predicate: (path: string) => boolean = () => true) =>
    normalized.units
      .filter((unit) => unit.zone === name && predicate(unit.path))
      .map(unitIdentity)
      .join('\u0001');
  return {
    model: normalized.model,
    tools: zone('tools'),
    system: zone('system'),
    params: zone('params', (path) => path !== 'model'),
    messages: normalized.units.filter((unit) => unit.zone === 'messages').map(unitIdentity),
    cachedTokens,
  };
}

/**
 * The server's comparison with the request named by `previous_message_id`, level by level in
 * prefix order. Null when nothing cached was lost (the SDK's "no divergence detected").
 */
function diagnose(state: EmulatorState, previousId: unknown, now: PromptFingerprint, readTokens: number): JsonRecord | null {
  if (previousId === null || previousId === undefined) return null;
  const before = state.recall(String(previousId));
  if (!before) return { cache_miss_reason: { type: 'previous_message_not_found' } };
  const missed = before.cachedTokens - readTokens;
  if (missed <= 0) return null;
  const changed = (type: string) => ({ cache_miss_reason: { type, cache_missed_input_tokens: missed } });
  if (before.model !== now.model) return changed('model_changed');
  if (before.tools !== now.tools) return changed('tools_changed');
  if (before.system !== now.system) return changed('system_changed');
  const appended = before.messages.every((identity, index) => now.messages[index] === identity);
  if (!appended && before.params === now.params) return changed('messages_changed');
  return { cache_miss_reason: { type: 'unavailable' } };
}
