import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../model/freeze.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import type { MessagesCheckpoint } from './plan-block-scan.js';
import { type PlanContext, planCacheFields } from './plan-cache-fields.js';

type JsonRecord = Record<string, unknown>;

const marker = fc.constantFrom(undefined, undefined, { type: 'ephemeral' }, { type: 'ephemeral', ttl: '1h' }, 'not-a-marker');
const block = fc.tuple(fc.constantFrom('text', 'empty', 'thinking', 'tool_use'), marker).map(([type, cacheControl]) => {
  const shapes: Record<string, JsonRecord> = {
    text: { type: 'text', text: 'some words' },
    empty: { type: 'text', text: '' },
    thinking: { type: 'thinking', thinking: 'hmm', signature: 's' },
    tool_use: { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } },
  };
  return cacheControl === undefined ? shapes[type]! : { ...shapes[type]!, cache_control: cacheControl };
});
const message = fc.record({
  role: fc.constantFrom('user', 'assistant'),
  content: fc.oneof(fc.constantFrom('', 'a string turn'), fc.array(block, { maxLength: 3 })),
});
/** One step of a conversation: what the next body does with the last one's messages. */
const step = fc.oneof(
  fc.record({ op: fc.constant('append' as const), messages: fc.array(message, { minLength: 1, maxLength: 4 }) }),
  fc.record({ op: fc.constant('repeat' as const) }),
  fc.record({ op: fc.constant('rewind' as const), keep: fc.nat({ max: 30 }) }),
  fc.record({ op: fc.constant('edit' as const), at: fc.nat({ max: 30 }), message }),
  // A message that is not deep-frozen (no checkpoint may cover it).
  fc.record({ op: fc.constant('unfrozen' as const), message }),
  fc.record({
    op: fc.constant('system' as const),
    system: fc.oneof(fc.constantFrom('', 'be terse'), fc.array(block, { maxLength: 2 })),
  }),
);
const conversation = fc.record({
  steps: fc.array(fc.tuple(step, fc.option(fc.nat({ max: 60 }), { nil: null })), { minLength: 1, maxLength: 12 }),
  tools: fc.array(
    fc.constantFrom({ name: 'f', input_schema: {} }, { name: 'g', input_schema: {}, cache_control: { type: 'ephemeral' } }),
    {
      maxLength: 2,
    },
  ),
});

const turn = (index: number, cacheControl?: unknown): JsonRecord =>
  deepFreeze({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `turn ${index}`, ...(cacheControl ? { cache_control: cacheControl } : {}) }],
  });
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;
/** Required cases: a long append past the lookback (the guard, found by the whole scan), client markers early on, string turns. */
const examples: Array<[typeof conversation extends fc.Arbitrary<infer T> ? T : never]> = [
  [
    {
      tools: [],
      steps: [
        [
          {
            op: 'append',
            messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }] }],
          },
          null,
        ],
        [{ op: 'append', messages: Array.from({ length: 25 }, () => ({ role: 'user', content: 'a string turn' })) }, 2],
        [{ op: 'repeat' }, 26],
        [{ op: 'append', messages: [{ role: 'assistant', content: [] }] }, 26],
      ] as Array<[Step, number | null]>,
    },
  ],
];

/** `editedMessages`' reading of the client body: messages holding a block with a `cache_control` of its own. */
function markedMessages(body: JsonRecord): number[] {
  return (body.messages as JsonRecord[]).flatMap((item, index) =>
    Array.isArray(item.content) &&
    item.content.some((part) => typeof part === 'object' && part !== null && Object.hasOwn(part, 'cache_control'))
      ? [index]
      : [],
  );
}

describe('planCacheFields resumed from the previous body’s messages checkpoint', () => {
  it('plans what the whole scan plans, over appends, repeats, rewinds, edits, unfrozen messages and system changes', () => {
    let resumed = 0;
    fc.assert(
      fc.property(conversation, ({ steps, tools }) => {
        let messages: unknown[] = [turn(0), turn(1, { type: 'ephemeral' })];
        let system: unknown = 'be terse';
        let checkpoint: MessagesCheckpoint | null = null;
        for (const [next, previousBreakpointPosition] of steps) {
          // Like `parseReusing`: a new array each body, the leading items the previous body's frozen objects.
          if (next.op === 'append') messages = [...messages, ...next.messages.map((item) => deepFreeze(structuredClone(item)))];
          else if (next.op === 'repeat') messages = [...messages];
          else if (next.op === 'rewind') messages = messages.slice(0, next.keep);
          else if (next.op === 'edit' && next.at < messages.length)
            messages = messages.map((item, index) => (index === next.at ? deepFreeze(structuredClone(next.message)) : item));
          else if (next.op === 'unfrozen') messages = [...messages, structuredClone(next.message)];
          else if (next.op === 'system') system = next.system;
          const body: JsonRecord = { model: 'claude-sonnet-4-5', tools, system, messages };
          const context: PlanContext = { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition };
          const whole = planCacheFields('anthropic', structuredClone(body), context);
          const covered: number = checkpoint?.messages.length ?? 0;
          const planned = planCacheFields('anthropic', body, { ...context, messagesCheckpoint: checkpoint });
          if (covered > 0 && messages.slice(0, covered).every((item, index) => item === checkpoint!.messages[index])) resumed++;
          expect(JSON.stringify(planned.body)).toBe(JSON.stringify(whole.body));
          expect(planned.breakpoints).toEqual(whole.breakpoints);
          expect(planned.lastBreakpointPosition).toBe(whole.lastBreakpointPosition);
          expect(planned.clientMarkedMessages).toEqual(markedMessages(body));
          // A checkpoint covers frozen messages only.
          const frozen = messages.every((item) => Object.isFrozen(item));
          expect(planned.messagesCheckpoint !== null).toBe(frozen);
          checkpoint = planned.messagesCheckpoint ?? null;
        }
      }),
      { numRuns: propertyRuns(200), examples },
    );
    expect(resumed).toBeGreaterThan(0);
  });
});
