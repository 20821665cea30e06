/**
 * What the LLM summariser's compaction calls cost on generated 200-turn sessions, before and
 * after cache-safe forks (issue 24).
 *
 * - `fresh (never fork)`: every summary is a fresh call of the auxiliary model (claude-haiku-4-5)
 *   with the transcript as text, as before forks (now one-shot: it writes nothing).
 * - `fork: auto` (the default): per call, a fork on claude-sonnet-4-5 that reads the parent's
 *   cache, or the fresh Haiku call, whichever `chooseSummaryRoute` prices lower.
 * - `fork: always`: every summary forks, warm or cold.
 *
 * One seed (11; SEEDS=11,23 for more). Window 64k tokens. Each pipeline runs twice: with Cachet's default timing (it compacts once the cache has expired,
 * so most summaries find the parent cold) and at a fixed 70% threshold ignoring the cache (so
 * summaries run while the parent is warm). Every parent request and every summary request goes
 * through the Anthropic adapter and the one Anthropic cache model (20-block lookback, 5-minute
 * TTL, per-model entries), priced with each model's row. Summary input cost counts input only
 * (reads, writes, uncached); output is the same for every strategy's summary count and left out.
 * "read share of the parent prefix" = the summary call's cache reads ÷ the parent's prefix tokens
 * as the fork repeats them, over summary calls whose parent cache was warm.
 */
import { costOf } from '../src/cache/cost.js';
import { createAnthropicCacheModel } from '../src/cache/models/anthropic-cache-model.js';
import { MemoryCheckpointStore } from '../src/compaction/checkpoint-store.js';
import { createLlmSummarizer } from '../src/compaction/llm-summarizer.js';
import { MemoryOffloadStore } from '../src/compaction/offload-store.js';
import { type CompactionPipelineOptions, createCompactionPipeline } from '../src/compaction/pipeline.js';
import { runSyntheticSession } from '../src/compaction/run-synthetic-session.js';
import { generateSyntheticSession } from '../src/compaction/synthetic-session.js';
import type { CompactionSummarizedPayload } from '../src/events/catalog.js';
import { EventBus } from '../src/events/event-bus.js';
import { anthropicAdapter } from '../src/providers/anthropic/index.js';
import { anthropicEstimator } from '../src/tokens/anthropic-estimator.js';

const MAIN = 'claude-sonnet-4-5';
const AUX = 'claude-haiku-4-5';
/** A 64k window: the 200-turn session outgrows it in conversation, not only in tool outputs, so summaries run. */
const WINDOW = 64_000;
const SUMMARY_REPLY = JSON.stringify({ userGoal: 'keep going', activeTasks: ['the current task'], nextSteps: ['continue'] });

interface Result {
  label: string;
  summaries: number;
  forks: number;
  summaryInputUsd: number;
  summaryInputTokens: number;
  summaryReadTokens: number;
  warmForks: number;
  warmPrefixTokens: number;
  warmReadTokens: number;
  parentInputUsd: number;
}

async function run(
  label: string,
  fork: 'auto' | 'always' | 'never',
  timing: Partial<CompactionPipelineOptions>,
  seed: number,
): Promise<Result> {
  const workload = generateSyntheticSession({ turns: 200, seed });
  const counter = anthropicEstimator();
  const cacheModel = createAnthropicCacheModel({ counter });
  const bus = new EventBus();
  const result: Result = {
    label,
    summaries: 0,
    forks: 0,
    summaryInputUsd: 0,
    summaryInputTokens: 0,
    summaryReadTokens: 0,
    warmForks: 0,
    warmPrefixTokens: 0,
    warmReadTokens: 0,
    parentInputUsd: 0,
  };
  let route: { at: number; payload: CompactionSummarizedPayload | null } = { at: 0, payload: null };
  let lastParentAt = workload.turns[0]?.at ?? 0;
  bus.on('compaction.summarized', (event) => {
    route = { at: event.at, payload: event.payload };
  });
  const summarizer = createLlmSummarizer({
    adapter: anthropicAdapter,
    adapterOptions: { tokenCounter: counter },
    model: AUX,
    windowTokens: WINDOW,
    mainModel: MAIN,
    mainWindowTokens: WINDOW,
    counter,
    fork,
    send: async (body) => {
      const at = route.payload ? route.at : lastParentAt;
      const verdict = cacheModel.judge(body, { at });
      result.summaries += 1;
      result.summaryInputUsd += costOf(verdict.usage, 'anthropic', body.model).inputCostUsd;
      result.summaryInputTokens += verdict.inputTokens;
      result.summaryReadTokens += verdict.cacheReadTokens;
      if (body.model === MAIN) result.forks += 1;
      if (body.model === MAIN && route.payload?.parentWarm) {
        result.warmForks += 1;
        result.warmPrefixTokens += route.payload.prefixTokens;
        result.warmReadTokens += verdict.cacheReadTokens;
      }
      route = { at: 0, payload: null };
      return { content: [{ type: 'text', text: SUMMARY_REPLY }] };
    },
  });
  const pipeline = createCompactionPipeline({
    windowTokens: WINDOW,
    counter,
    offloadStore: new MemoryOffloadStore(),
    checkpointStore: new MemoryCheckpointStore(),
    summarizer,
    ...timing,
  });
  await runSyntheticSession(workload, {
    pipeline,
    counter,
    bus,
    model: MAIN,
    onRequest: ({ request, at }) => {
      lastParentAt = at;
      const { body } = anthropicAdapter.convertRequest(request, { tokenCounter: counter });
      result.parentInputUsd += costOf(cacheModel.judge(body, { at }).usage, 'anthropic', MAIN).inputCostUsd;
    },
  });
  return result;
}

function print(title: string, results: Result[]): void {
  console.log(`\n${title}`);
  console.log(
    'summariser | summary calls | forks | summary input (USD) | summary read share | warm forks | read share of the parent prefix (warm) | parent requests input (USD)',
  );
  for (const result of results) {
    console.log(
      [
        result.label,
        result.summaries,
        result.forks,
        result.summaryInputUsd.toFixed(4),
        `${((100 * result.summaryReadTokens) / Math.max(1, result.summaryInputTokens)).toFixed(1)}%`,
        result.warmForks,
        result.warmForks === 0 ? '—' : `${((100 * result.warmReadTokens) / result.warmPrefixTokens).toFixed(1)}%`,
        result.parentInputUsd.toFixed(2),
      ].join(' | '),
    );
  }
}

const FIXED: Partial<CompactionPipelineOptions> = { thresholds: { monitor: 0.7, light: 0.7, full: 0.7, emergency: 0.9 } };
for (const seed of (process.env.SEEDS ?? '11').split(',').map(Number)) {
  for (const [timing, options] of [
    ['cachet timing (compacts once the cache has expired)', {}],
    ['fixed 70% threshold (compacts while the cache is warm)', FIXED],
  ] as const) {
    const modes = [
      ['fresh (never fork)', 'never'],
      ['fork: auto (default)', 'auto'],
      ['fork: always', 'always'],
    ] as const;
    const results: Result[] = [];
    for (const [label, mode] of modes) results.push(await run(label, mode, options, seed));
    print(`seed ${seed}, ${timing}`, results);
  }
}
