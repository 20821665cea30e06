/**
 * Session cost of compaction timing on generated 200-turn agent sessions (issue 7).
 *
 * Strategies, all on the same scripted session:
 * - cachet: the default pipeline (cost-model timing: waits while the cache is hot, prunes once it
 *   has expired, emergency at 90%).
 * - fixed: the same layers at a fixed 70% threshold, applied regardless of cache state.
 * - ingestion filter only: large tool outputs kept as head + tail at ingestion, nothing else.
 * - none: no compaction (only meaningful where the session fits the window).
 *
 * Every request goes through the Anthropic adapter and the Anthropic cache model in src/cache
 * (breakpoints, 20-block lookback, 5-minute TTL from the request start, refreshed by reads), and
 * is priced with the claude-sonnet-4-5 row of src/cache/pricing.ts ($3/MTok input, writes 1.25x,
 * reads 0.1x). Output tokens are the same for every strategy and left out; the extractive
 * summariser costs nothing.
 */
import { costOf } from '../src/cache/cost.js';
import { createAnthropicCacheModel } from '../src/cache/models/anthropic-cache-model.js';
import { MemoryCheckpointStore } from '../src/compaction/checkpoint-store.js';
import { MemoryOffloadStore } from '../src/compaction/offload-store.js';
import { type CompactionPipelineOptions, createCompactionPipeline } from '../src/compaction/pipeline.js';
import { runSyntheticSession } from '../src/compaction/run-synthetic-session.js';
import { generateSyntheticSession } from '../src/compaction/synthetic-session.js';
import { EventBus } from '../src/events/event-bus.js';
import { anthropicAdapter } from '../src/providers/anthropic/index.js';
import { anthropicEstimator } from '../src/tokens/anthropic-estimator.js';

const MODEL = 'claude-sonnet-4-5';
const WINDOW = 200_000;

interface StrategyResult {
  strategy: string;
  requests: number;
  costUsd: number;
  inputTokens: number;
  readShare: number;
  writeTokens: number;
  maxRequestTokens: number;
  overWindow: number;
  compactions: number;
  layers: Record<string, number>;
  skipped: Record<string, number>;
}

async function run(
  strategy: string,
  workload: ReturnType<typeof generateSyntheticSession>,
  pipelineOptions: Partial<CompactionPipelineOptions> | null,
  cacheHot?: boolean,
): Promise<StrategyResult> {
  const counter = anthropicEstimator();
  const cacheModel = createAnthropicCacheModel({ counter });
  const bus = new EventBus();
  const layers: Record<string, number> = {};
  const skipped: Record<string, number> = {};
  bus.on('compaction.applied', (event) => {
    layers[event.payload.layer] = (layers[event.payload.layer] ?? 0) + 1;
  });
  bus.on('compaction.skipped', (event) => {
    skipped[event.payload.reason] = (skipped[event.payload.reason] ?? 0) + 1;
  });
  const pipeline = pipelineOptions
    ? createCompactionPipeline({
        windowTokens: WINDOW,
        counter,
        offloadStore: new MemoryOffloadStore(),
        checkpointStore: new MemoryCheckpointStore(),
        ...pipelineOptions,
      })
    : undefined;
  const result: StrategyResult = {
    strategy,
    requests: 0,
    costUsd: 0,
    inputTokens: 0,
    readShare: 0,
    writeTokens: 0,
    maxRequestTokens: 0,
    overWindow: 0,
    compactions: 0,
    layers,
    skipped,
  };
  let readTokens = 0;
  await runSyntheticSession(workload, {
    pipeline,
    counter,
    bus,
    model: MODEL,
    ...(cacheHot === undefined ? {} : { cacheHot }),
    onRequest: ({ request, at }) => {
      const { body } = anthropicAdapter.convertRequest(request, { tokenCounter: counter });
      const verdict = cacheModel.judge(body, { at });
      result.requests += 1;
      result.costUsd += costOf(verdict.usage, 'anthropic', MODEL).inputCostUsd;
      result.inputTokens += verdict.inputTokens;
      result.writeTokens += verdict.cacheWriteTokens;
      readTokens += verdict.cacheReadTokens;
      result.maxRequestTokens = Math.max(result.maxRequestTokens, verdict.inputTokens);
      if (verdict.inputTokens > WINDOW) result.overWindow += 1;
    },
  });
  result.readShare = readTokens / result.inputTokens;
  result.compactions = Object.values(layers).reduce((sum, count) => sum + count, 0);
  return result;
}

function print(title: string, results: StrategyResult[]): void {
  console.log(`\n${title}`);
  console.log(
    'strategy | requests | input cost (USD) | input tokens | cache-read share | write tokens | max request | over window | compactions (by layer) | skipped',
  );
  for (const result of results) {
    console.log(
      [
        result.strategy,
        result.requests,
        result.costUsd.toFixed(2),
        (result.inputTokens / 1e6).toFixed(2) + 'M',
        (result.readShare * 100).toFixed(1) + '%',
        (result.writeTokens / 1e6).toFixed(2) + 'M',
        result.maxRequestTokens,
        result.overWindow,
        `${result.compactions} ${JSON.stringify(result.layers)}`,
        JSON.stringify(result.skipped),
      ].join(' | '),
    );
  }
}

const INGESTION_ONLY: Partial<CompactionPipelineOptions> = {
  thresholds: { monitor: 1, light: 1, full: 1, emergency: 1 },
  mediaWindowMessages: 1_000,
};
const FIXED: Partial<CompactionPipelineOptions> = { thresholds: { monitor: 0.7, light: 0.7, full: 0.7, emergency: 0.9 } };

for (const seed of [11, 23]) {
  const heavy = generateSyntheticSession({ turns: 200, seed });
  print(`heavy session, seed ${seed} (uncompacted it grows far past ${WINDOW} tokens; ${heavy.requestCount} requests)`, [
    await run('cachet', heavy, {}),
    await run('fixed-70%-ignoring-cache', heavy, FIXED, false),
    await run('ingestion filter only', heavy, INGESTION_ONLY),
    await run('none (exceeds the window)', heavy, null),
  ]);
}
const light = generateSyntheticSession({ turns: 200, seed: 11, outputScale: 0.12 });
print(`light session (fits the window uncompacted; ${light.requestCount} requests)`, [
  await run('cachet', light, {}),
  await run('fixed-70%-ignoring-cache', light, FIXED, false),
  await run('none', light, null),
]);
