import { afterEach, describe, expect, it, vi } from 'vitest';
import { costOf, uncachedCostOf } from '../../cache/cost.js';
import { parseModelsFile } from '../../cache/models-file.js';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { installUserModelRows } from '../../providers/shared/user-model-rows.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import { createConversationTracker } from './conversation-tracker.js';
import { createPlanModels } from './judge-exchange.js';
import { READERS } from './observe-reply.js';
import { createExchangeRecorder, type Exchange } from './record-exchange.js';

const MODEL = 'claude-sonnet-5-5';

/** A whole (not streamed) reply of each wire shape, carrying `usage`. */
const REPLIES = {
  anthropic: (model: string, usage: unknown) => ({ id: 'msg_1', type: 'message', role: 'assistant', model, content: [], usage }),
  'openai-responses': (model: string, usage: unknown) => ({
    id: 'resp_1',
    object: 'response',
    status: 'completed',
    model,
    output: [],
    usage,
  }),
};

/** A reply of `provider`'s wire shape carrying `usage`, read as the proxy reads it. */
function summaryOf(usage: Record<string, unknown>, provider: keyof typeof REPLIES = 'anthropic', model = MODEL) {
  const reader = READERS[provider](false);
  reader.push(JSON.stringify(REPLIES[provider](model, usage)));
  return reader.finish();
}

/** The record stage alone, recording exchanges of one conversation, and the usage events it publishes. */
function recorder(provider: keyof typeof REPLIES = 'anthropic', model = MODEL) {
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
    model,
    opensTurn: true,
    sentBytes: new TextEncoder().encode('{}'),
    planned: false,
    plannedBreakpoints: [],
    summary: summaryOf(usage, provider, model),
    status: 200,
    durationMs: 1,
    judge: true,
    firstDropped: false,
    client: null,
  });
  return { record: (usage: Record<string, unknown>) => record(tracker.get('c', provider), exchange(usage)), usages };
}

describe('the proxy record stage prices each exchange', () => {
  const usage = { input_tokens: 1000, cache_read_input_tokens: 20_000, cache_creation_input_tokens: 0, output_tokens: 300 };

  it('at the price costOf gives, also after models-file rows come into force mid-run (the price row is remembered per set of rows)', () => {
    const { record, usages } = recorder();
    const expected = () => {
      const parsed = summaryOf(usage)!.usage!;
      return [costOf(parsed, 'anthropic', MODEL).costUsd, uncachedCostOf(parsed, 'anthropic', MODEL).costUsd];
    };
    record(usage);
    const builtIn = expected();
    const { rows } = parseModelsFile(`- {provider: anthropic, model: ${MODEL}, inputPerMTok: 40, readMultiplier: 0.5}`, 'm.yaml');
    const restore = installUserModelRows(rows);
    try {
      record(usage);
      const fromFile = expected();
      expect(fromFile).not.toEqual(builtIn);
      expect(usages.map((payload) => [payload.costUsd, payload.uncachedCostUsd])).toEqual([builtIn, fromFile]);
    } finally {
      restore();
    }
    record(usage);
    expect(usages.map((payload) => [payload.costUsd, payload.uncachedCostUsd])[2]).toEqual(builtIn);
  });
});

/**
 * A model Cachet's own table does not list: priced by the genai-prices fallback, which carries a
 * dated price change (input $1/MTok until 2026-07-30, $0.20 from that day).
 */
const LUNA = 'gpt-5.6-luna';
const LUNA_PROVIDER = 'openai-responses';

describe('hostile: a long-running proxy across a dated price change', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const usage = { input_tokens: 30_000, input_tokens_details: { cached_tokens: 20_000 }, output_tokens: 300 };

  it('prices the exchange after a genai-prices price change at the new price, as costOf does that day', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { record, usages } = recorder(LUNA_PROVIDER, LUNA);
    const expected = () => {
      const parsed = summaryOf(usage, LUNA_PROVIDER, LUNA)!.usage!;
      return [costOf(parsed, LUNA_PROVIDER, LUNA).costUsd, uncachedCostOf(parsed, LUNA_PROVIDER, LUNA).costUsd];
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
