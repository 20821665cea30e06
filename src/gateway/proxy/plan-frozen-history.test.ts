import { describe, expect, it } from 'vitest';
import { unitsOf } from '../../cache/wire/body-units.js';
import { normalizeWireBody } from '../../cache/wire/normalize-wire-body.js';
import { sharedUnitCount } from '../../cache/wire/shared-units.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import type { Conversation } from './conversation-tracker.js';
import { jsonSpans, type ValueSpan } from './json-spans.js';
import { comparePlan, createPlanModels } from './judge-exchange.js';
import { planCacheFields } from './plan-cache-fields.js';
import { planRequest } from './plan-request.js';
import { type ParsedHistory, parseReusing } from './reuse-parse.js';

/**
 * `--plan` parses a conversation's history once and deep-freezes it (parseReusing): the cache
 * models' normalisation then takes the messages a body repeats at the same index as the last
 * body's units, so the savings judge costs what is new. The figures must be those of judging
 * plainly parsed (unfrozen) bodies.
 */

type JsonRecord = Record<string, unknown>;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const message = (index: number, text = `turn ${index} ${'words of the history '.repeat(30)}`, marked = false) => ({
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: [{ type: 'text', text, ...(marked ? { cache_control: { type: 'ephemeral' } } : {}) }],
});
const bodyOf = (messages: unknown[]) =>
  encoder.encode(
    JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      system: [{ type: 'text', text: `Be exact. ${'Rules of the house. '.repeat(80)}`, cache_control: { type: 'ephemeral' } }],
      messages,
    }),
  );
const parse = (bytes: Uint8Array, previous: ParsedHistory | null) =>
  parseReusing(bytes, jsonSpans(bytes, 1) as ValueSpan, previous);

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe('--plan: the parsed history is frozen, and the judge reuses its units', () => {
  it('deep-freezes every history item, new or repeated, and leaves the body object itself open', () => {
    const history = [message(0), message(1), message(2)];
    const first = parse(bodyOf(history), null);
    const second = parse(bodyOf([...history, message(3), message(4, '{"nested":[1,{"a":2}]}')]), first.history);
    for (const parsed of [first, second]) {
      const items = (parsed.body as { messages: unknown[] }).messages;
      expect(items.every(isDeepFrozen)).toBe(true);
      expect(Object.isFrozen(parsed.body)).toBe(false);
    }
  });

  it('lets normalisation share the repeated messages’ units with the previous body', () => {
    const history = Array.from({ length: 8 }, (_, index) => message(index));
    const first = parse(bodyOf(history), null);
    const second = parse(bodyOf([...history, message(8)]), first.history);
    const beforeBody = normalizeWireBody(first.body, 'anthropic');
    const afterBody = normalizeWireBody(second.body, 'anthropic');
    const [before, after] = [beforeBody.units, afterBody.units];
    // model, system, images, then one unit per message: the eight repeated messages are shared.
    const leading = after.findIndex((unit) => unit.zone === 'messages');
    expect(sharedUnitCount(unitsOf(afterBody), unitsOf(beforeBody))).toBe(leading + 8);
    expect(after[leading + 7]).toBe(before[leading + 7]);
  });

  it('judges the same savings as plainly parsed bodies over appends, a rewind, an edit and a client marker', () => {
    const history = Array.from({ length: 30 }, (_, index) => message(index));
    const steps: unknown[][] = [
      history.slice(0, 5),
      history.slice(0, 7),
      history.slice(0, 7),
      history.slice(0, 11),
      // A rewind to an earlier point, then a different continuation.
      [...history.slice(0, 6), message(6, 'another path')],
      [...history.slice(0, 6), message(6, 'another path'), message(7), message(8)],
      // An edit in the middle of the history.
      [...history.slice(0, 3), message(3, 'edited'), ...history.slice(4, 12)],
      // The client marks a message of its own.
      [...history.slice(0, 12), message(12, 'marked', true), message(13)],
      [...history.slice(0, 12), message(12, 'marked', true), ...history.slice(13, 25)],
      history.slice(0, 30),
    ];
    const counters = { anthropic: anthropicEstimator(), openai: openAICounterOrEstimate() };
    const proxyModels = createPlanModels(counters);
    const referenceModels = createPlanModels(counters);
    const conversation = {
      id: 'c1@anthropic',
      key: 'c1',
      provider: 'anthropic',
      lastResponseId: null,
      lastBreakpointPosition: null,
    } as unknown as Conversation;
    const reference = { ...conversation, id: 'reference' } as Conversation;
    let referencePosition: number | null = null;
    steps.forEach((messages, index) => {
      const bytes = bodyOf(messages);
      const at = 1_000_000 + index * 30_000;
      const planned = planRequest('anthropic', bytes, {}, () => conversation);
      if (planned.kind !== 'planned') throw new Error(`step ${index} was not planned`);
      conversation.history = planned.history ?? undefined;
      const judged = comparePlan(
        proxyModels.of(conversation, bytes.byteLength),
        { clientBody: planned.clientBody, sentBody: planned.sentBody, breakpoints: planned.breakpoints, ttl: '5m', at },
        'anthropic',
        'claude-sonnet-4-5',
      );
      const plain = JSON.parse(decoder.decode(bytes)) as JsonRecord;
      const context = { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition: referencePosition };
      const plan = planCacheFields('anthropic', plain, context, {});
      referencePosition = plan.lastBreakpointPosition;
      const expected = comparePlan(
        referenceModels.of(reference, bytes.byteLength),
        { clientBody: plain, sentBody: plan.body, breakpoints: plan.breakpoints, ttl: '5m', at },
        'anthropic',
        'claude-sonnet-4-5',
      );
      expect(judged, `step ${index}`).toEqual(expected);
      expect(judged).not.toBeNull();
    });
  });
});
