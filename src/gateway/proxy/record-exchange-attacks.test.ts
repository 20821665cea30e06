import { afterEach, describe, expect, it, vi } from 'vitest';
import { costOf, uncachedCostOf } from '../../cache/cost.js';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import { createConversationTracker } from './conversation-tracker.js';
import { createPlanModels } from './judge-exchange.js';
import { READERS } from './observe-reply.js';
import { createExchangeRecorder, type Exchange } from './record-exchange.js';

/**
 * A model Cachet's own table does not list: priced by the genai-prices fallback, which carries a
 * dated price change (input $1/MTok until 2026-07-30, $0.20 from that day).
 */
const MODEL = 'gpt-5.6-luna';
const PROVIDER = 'openai-responses';

function summaryOf(usage: Record<string, unknown>) {
  const reader = READERS[PROVIDER](false);
  reader.push(JSON.stringify({ id: 'resp_1', object: 'response', status: 'completed', model: MODEL, output: [], usage }));
  return reader.finish();
}

function recorder() {
  const bus = new EventBus();
  const usages: Array<CachetEvent<'usage.recorded'>['payload']> = [];
  bus.on('usage.recorded', (event) => usages.push(event.payload));
  const counters = { anthropic: anthropicEstimator(), openai: openAICounterOrEstimate() };
  const tracker = createConversationTracker(bus, counters);
  const record = createExchangeRecorder({
    bus,
    capture: undefined,
    tracker,
    planModels: createPlanModels(counters),
    planSavings: false,
    planTtl: '5m',
    pending: () => 0,
  });
  const exchange = (usage: Record<string, unknown>): Exchange => ({
    at: Date.now(),
    clientBody: null,
    sentBody: null,
    model: MODEL,
    opensTurn: true,
    sentBytes: new TextEncoder().encode('{}'),
    planned: false,
    plannedBreakpoints: [],
    summary: summaryOf(usage),
    status: 200,
    durationMs: 1,
    judge: true,
    firstDropped: false,
    client: null,
  });
  return { record: (usage: Record<string, unknown>) => record(tracker.get('c', PROVIDER), exchange(usage)), usages };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the record stage prices a long-running proxy at the price of the day (hostile: a dated price change mid-run)', () => {
  const usage = { input_tokens: 30_000, input_tokens_details: { cached_tokens: 20_000 }, output_tokens: 300 };

  it('prices the exchange after a genai-prices price change at the new price, as costOf does that day', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { record, usages } = recorder();
    const expected = () => {
      const parsed = summaryOf(usage)!.usage!;
      return [costOf(parsed, PROVIDER, MODEL).costUsd, uncachedCostOf(parsed, PROVIDER, MODEL).costUsd];
    };
    vi.setSystemTime(new Date('2026-07-29T23:59:00Z'));
    record(usage);
    const before = expected();
    vi.setSystemTime(new Date('2026-07-30T00:01:00Z'));
    record(usage);
    const after = expected();
    // The yardstick itself moved: the fallback's price changed that day.
    expect(after[0]).toBeLessThan(before[0]!);
    expect(usages.map((payload) => [payload.costUsd, payload.uncachedCostUsd])).toEqual([before, after]);
  });
});
