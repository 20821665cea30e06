import { describe, expect, it } from 'vitest';
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

function summaryOf(usage: Record<string, number>) {
  const reader = READERS.anthropic(false);
  reader.push(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: MODEL, content: [], usage }));
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
  const exchange = (usage: Record<string, number>): Exchange => ({
    at: 1_000,
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
  return { record: (usage: Record<string, number>) => record(tracker.get('c', 'anthropic'), exchange(usage)), usages };
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
