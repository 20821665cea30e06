import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { planCacheFields } from '../proxy/plan-cache-fields.js';
import { planKeepsClientMarkers } from './planned-lockstep.js';
import { PlannedMarkers } from './planned-markers.js';

type JsonRecord = Record<string, unknown>;

const marker = fc.constantFrom(undefined, { type: 'ephemeral' }, { type: 'ephemeral', ttl: '1h' }, 'not-a-marker', {
  type: 'other',
});
const withMarker = (block: JsonRecord, cacheControl: unknown) =>
  cacheControl === undefined ? block : { ...block, cache_control: cacheControl };
const shapes: Record<string, JsonRecord> = {
  text: { type: 'text', text: 'some words' },
  empty: { type: 'text', text: '' },
  thinking: { type: 'thinking', thinking: 'hmm', signature: 's' },
  tool_use: { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } },
};
const block = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.tuple(fc.constantFrom(...Object.keys(shapes)), marker).map(([type, cc]) => withMarker(shapes[type]!, cc)),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('a bare string', null, [1]) },
);
const content = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('', 'a string turn') },
  { weight: 6, arbitrary: fc.array(block, { maxLength: 3 }) },
);
const message = fc.oneof(
  { weight: 12, arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant'), content }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'not a message') },
);
const body = fc
  .record(
    {
      model: fc.constant('claude-sonnet-4-5'),
      tools: fc.array(
        fc.tuple(fc.string({ maxLength: 2 }), marker).map(([name, cc]) => withMarker({ name, input_schema: {} }, cc)),
        {
          maxLength: 2,
        },
      ),
      system: fc.oneof(fc.constantFrom('', 'be terse'), fc.array(block, { maxLength: 3 })),
      messages: fc.array(message, { maxLength: 30 }),
      cache_control: fc.constantFrom(undefined, undefined, undefined, { type: 'ephemeral' }),
    },
    { requiredKeys: ['model', 'messages'] },
  )
  .map((drawn): JsonRecord => drawn);
interface Step {
  keep: number;
  body: JsonRecord;
  asPlanned: boolean;
  freeze: boolean;
  previous: number | null;
}
/** A conversation: each body keeps a run of the previous body's messages (the same objects) and adds its own. */
const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.record({
    keep: fc.nat({ max: 40 }),
    body,
    // The client marks what the plan marks (the planned body sent as the client's): the lockstep case.
    asPlanned: fc.boolean(),
    freeze: fc.boolean(),
    previous: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
  }),
  { minLength: 1, maxLength: 6 },
);

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const planOf = (request: JsonRecord, previous: number | null) =>
  planCacheFields('anthropic', request, { conversationId: 'c', previousResponseId: null, previousBreakpointPosition: previous });

const turns = (count: number, lastMarked: boolean): unknown[] =>
  Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [
      {
        type: 'text',
        text: `turn ${index}`,
        ...(lastMarked && index === count - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
      },
    ],
  }));
/** Required cases: the lookback guard kept, client tails in the last message (one after a non-marker `cache_control`). */
const examples: Array<[Step[]]> = [
  [
    [
      {
        keep: 0,
        body: { model: 'm', system: [{ type: 'text', text: 's' }], messages: turns(3, true) },
        asPlanned: true,
        freeze: true,
        previous: null,
      },
      { keep: 3, body: { model: 'm', messages: turns(30, true) }, asPlanned: true, freeze: true, previous: 3 },
    ],
  ],
  [
    [
      {
        keep: 0,
        body: {
          model: 'm',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'ask', cache_control: { type: 'ephemeral' } },
                { type: 'text', text: 'now', cache_control: 'not-a-marker' },
              ],
            },
          ],
        },
        asPlanned: false,
        freeze: false,
        previous: null,
      },
    ],
  ],
  [
    [
      {
        keep: 0,
        body: {
          model: 'm',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'ask', cache_control: { type: 'ephemeral' } },
                { type: 'text', text: 'now' },
              ],
            },
          ],
        },
        asPlanned: false,
        freeze: true,
        previous: null,
      },
    ],
  ],
];

describe('PlannedMarkers', () => {
  it("says the plan keeps the client's markers exactly when planKeepsClientMarkers does, with the plan's last position", () => {
    fc.assert(
      fc.property(steps, (drawn) => {
        const markers = new PlannedMarkers();
        let previousMessages: unknown[] = [];
        for (const { keep, body: drawnBody, asPlanned, freeze, previous } of drawn) {
          let request: JsonRecord = {
            ...drawnBody,
            messages: [...previousMessages.slice(0, keep), ...(drawnBody.messages as unknown[])],
          };
          if (asPlanned) request = { ...planOf(structuredClone(request), previous).body, diagnostics: undefined };
          if (freeze) for (const item of request.messages as unknown[]) deepFreeze(item);
          const plan = planOf(request, previous);
          const kept = markers.keptPlan(request, previous);
          expect(kept !== null).toBe(planKeepsClientMarkers(request, plan));
          if (kept) expect(kept.lastBreakpointPosition).toBe(plan.lastBreakpointPosition);
          previousMessages = request.messages as unknown[];
        }
      }),
      { numRuns: propertyRuns(300), examples },
    );
  });

  it('reads a message it has seen again when it is not frozen (a client may edit its markers in place)', () => {
    const markers = new PlannedMarkers();
    const messages = turns(4, true) as Array<{ content: JsonRecord[] }>;
    // The message, its list and its markers frozen, its blocks not: a block's marker can still change.
    for (const item of messages) {
      Object.freeze(Object.freeze(item).content);
      for (const part of item.content) if (part.cache_control) Object.freeze(part.cache_control);
    }
    const request = { model: 'm', messages };
    expect(markers.keptPlan(request, null)).toStrictEqual({ lastBreakpointPosition: 3 });
    delete messages[3]!.content[0]!.cache_control;
    messages[1]!.content[0]!.cache_control = { type: 'ephemeral' };
    expect(markers.keptPlan(request, null)).toBeNull();
    expect(planKeepsClientMarkers(request, planOf(request, null))).toBe(false);
    // Frozen blocks in a message that is not: its content can be replaced.
    const open = turns(2, true) as Array<{ content: JsonRecord[] }>;
    for (const item of open) for (const part of item.content) deepFreeze(part);
    const edited = { model: 'm', messages: open };
    expect(markers.keptPlan(edited, null)).toStrictEqual({ lastBreakpointPosition: 1 });
    open[1]!.content = [deepFreeze({ type: 'text', text: 'b' })];
    // (A marker left on the message before the last would be a message-long tail the plan keeps: none here.)
    open[0]!.content = [deepFreeze({ type: 'text', text: 'a' })];
    expect(markers.keptPlan(edited, null)).toBeNull();
  });
});
