import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import { joinedBody } from './body-pieces.js';
import type { Conversation } from './conversation-tracker.js';
import { comparePlan, createPlanModels } from './judge-exchange.js';
import { planCacheFields } from './plan-cache-fields.js';
import { planRequest } from './plan-request.js';

/**
 * Attacks on `--plan` since it shares objects: the parsed history is reused from the previous
 * body (parseReusing) and the planned body shares every block it does not edit with the client's
 * (planCacheFields' copy on write). Over a conversation with hostile bytes in its history, each
 * request's forwarded bytes must be the client's outside the cache fields, its planned body what
 * a plan of a plain JSON.parse gives, and no client body may change after judging.
 */

const decoder = new TextDecoder();
type JsonRecord = Record<string, unknown>;

/** History items as a client writes them: big numbers, repeated keys, "__proto__", invalid UTF-8, escapes, spaces, markers. */
const items: Buffer[] = [
  '{"role":"user","content":[{"type":"text","text":"hello n=12345678901234567890123"}]}',
  '{"role":"assistant","content":[{"type":"text","text":"a","type":"text"},{"type":"tool_use","id":"t1","name":"f","input":{"v":12345678901234567890123,"k":1,"k":2,"__proto__":{"x":1}}}]}',
  Buffer.concat([
    Buffer.from('{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"bytes '),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.from('"}]}'),
  ]),
  '{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"\\u00e9\\ud800 \\"q\\" \\\\"}]}',
  '{"role":"user","content":[{"type":"text","text":"marked","cache_control":{"type":"ephemeral"}},{"type":"text","text":"tail"}]}',
  '{"role":"assistant","content":[{"__proto__":{"cache_control":{"type":"ephemeral"}},"type":"text","text":"proto"}]}',
  '{"role":"user" , "content" : [ {"type":"text","text":"spaces"} ] }',
  '{"role":"assistant","content":[{"type":"text","text":"-0 and 1e300","n":1e300,"z":-0}]}',
].map((item) => (Buffer.isBuffer(item) ? item : Buffer.from(item)));

const bodyOf = (count: number, extra: string) =>
  Buffer.concat([
    Buffer.from(
      `{"model":"claude-sonnet-4-5","max_tokens":10,"metadata":{"user_id":"u1"},"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],${extra}"messages":[`,
    ),
    ...items.slice(0, count).flatMap((item, index) => (index > 0 ? [Buffer.from(','), item] : [item])),
    Buffer.from('],"tools":[{"name":"f","input_schema":{"type":"object"}}],"max_tokens":20}'),
  ]);

/** The bytes without the markers and diagnostics the plan may remove or add (every content here is a block list). */
const withoutCacheFields = (bytes: Uint8Array) =>
  Buffer.from(bytes)
    .toString('latin1')
    .replace(/,?"cache_control":\{"type":"ephemeral"(,"ttl":"1h")?\}/g, '')
    .replace(/,?"diagnostics":\{"previous_message_id":(null|"[^"]*")\}/g, '');

describe('cachet proxy --plan with shared objects', () => {
  it('forwards the client’s bytes but for cache fields, plans as a plain parse would, and never changes a client body', () => {
    const counters = { anthropic: anthropicEstimator(), openai: openAICounterOrEstimate() };
    const models = createPlanModels(counters);
    const conversation = {
      id: 'u1@anthropic',
      key: 'u1',
      provider: 'anthropic',
      lastResponseId: null,
      lastBreakpointPosition: null,
      recorded: 0,
    } as unknown as Conversation;
    let referencePosition: number | null = null;
    const judgedBodies: Array<{ body: JsonRecord; text: string }> = [];
    for (let count = 1; count <= items.length; count++) {
      // The same history with and without a new body member before it (its spans move, its items do not).
      for (const extra of ['', '"x":1,']) {
        const bytes = bodyOf(count, extra);
        const planned = planRequest('anthropic', bytes, { ttl: '1h' }, () => conversation);
        if (planned.kind !== 'planned') throw new Error(`request ${count} was not planned: ${planned.reason}`);
        conversation.history = planned.history ?? undefined;
        const plain = JSON.parse(decoder.decode(bytes)) as JsonRecord;
        const reference = planCacheFields(
          'anthropic',
          plain,
          {
            conversationId: 'u1',
            previousResponseId: conversation.lastResponseId,
            previousBreakpointPosition: referencePosition,
          },
          { ttl: '1h' },
        );
        referencePosition = reference.lastBreakpointPosition;
        expect(isDeepStrictEqual(planned.clientBody, plain)).toBe(true);
        expect(isDeepStrictEqual(planned.sentBody, reference.body)).toBe(true);
        expect(isDeepStrictEqual(JSON.parse(decoder.decode(joinedBody(planned.sent))), reference.body)).toBe(true);
        expect(withoutCacheFields(joinedBody(planned.sent))).toBe(withoutCacheFields(bytes));
        comparePlan(
          models.of(conversation, bytes.byteLength),
          {
            clientBody: planned.clientBody,
            sentBody: planned.sentBody,
            breakpoints: planned.breakpoints,
            ttl: '1h',
            at: count * 60_000,
          },
          'anthropic',
          'claude-sonnet-4-5',
        );
        conversation.lastResponseId = `msg_${count}`;
        judgedBodies.push({ body: planned.clientBody, text: JSON.stringify(plain) });
      }
    }
    // Every client body, its history shared with later ones, is still what the client sent.
    for (const { body, text } of judgedBodies) expect(JSON.stringify(body)).toBe(text);
  });
});
