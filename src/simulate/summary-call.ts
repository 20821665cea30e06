import { costOf } from '../cache/cost.js';
import type { CacheModel } from '../cache/models/cache-verdict.js';
import { chooseSummaryRoute } from '../compaction/summary-route.js';
import { emptyUsage } from '../model/usage.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { sideRequestBody } from './side-request-body.js';

/** A summary call the compaction made (`SummaryCallNote` of `createSimulationCompactionHook`). */
export interface SummaryCallInput {
  at: number;
  instruction: string;
  freshPrompt: string;
  /** The auxiliary model a fresh call runs on [the parent's model]. */
  auxModel?: string;
}

/**
 * A compaction's summary call as the LLM summariser would send it, billed: the route
 * `chooseSummaryRoute` prices lower — a fork of the parent's last request (its exact bytes, the
 * instruction after its last block) on the session's model, judged by the cache model (it reads
 * the parent's entry when that is alive), or a fresh call of the auxiliary model with the
 * transcript as text (nothing to read: every token uncached). Input only, like every simulated
 * request; both expected prices are kept.
 */
export interface SimulatedSummary {
  at: number;
  choice: 'fork' | 'fresh';
  model: string;
  parentWarm: boolean;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** What the call cost (input), USD. */
  costUsd: number;
  /** The route's expected input prices, USD (null when unpriced). */
  forkInputCostUsd: number | null;
  freshInputCostUsd: number | null;
}

export interface SummaryCallContext {
  cache: CacheModel;
  provider: ProviderId;
  counter: TokenCounter;
  /** The parent's last request: the body a fork repeats, its model and its prefix tokens. */
  parent: { body: unknown; model: string; prefixTokens: number };
  /** When the parent's entry was last read or written (its last request or keep-alive ping), and how long it lives. */
  lastActiveAt: number;
  ttlMs: number;
}

/**
 * Bill one summary call: price both routes as the LLM summariser does, send the cheaper one to
 * the cache model (a fork) or price its prompt uncached (a fresh call on another model reads no
 * entry, and is one-shot: it writes none).
 *
 * @example
 * simulateSummaryCall(call, { cache, provider: 'anthropic', counter, parent, lastActiveAt, ttlMs: 300_000 }).choice; // 'fork'
 */
export function simulateSummaryCall(call: SummaryCallInput, context: SummaryCallContext): SimulatedSummary {
  const { cache, provider, counter, parent } = context;
  const auxModel = call.auxModel ?? parent.model;
  const forkBody = sideRequestBody(parent.body, providerEntry(provider).wire, call.instruction);
  const parentWarm = call.at - context.lastActiveAt < context.ttlMs;
  const freshPromptTokens = counter.countText(call.freshPrompt);
  const route = chooseSummaryRoute({
    provider,
    mainModel: parent.model,
    auxModel,
    prefixTokens: parent.prefixTokens,
    parentWarm,
    forkInstructionTokens: counter.countText(call.instruction),
    freshPromptTokens,
    expectedOutputTokens: 0,
    forkFits: forkBody !== null,
    freshFits: true,
  });
  const priced = { parentWarm, forkInputCostUsd: route.forkInputCostUsd, freshInputCostUsd: route.freshInputCostUsd };
  if (route.choice === 'fork' && forkBody) {
    const verdict = cache.judge(forkBody, { at: call.at });
    return {
      at: call.at,
      choice: 'fork',
      model: parent.model,
      inputTokens: verdict.inputTokens,
      cacheReadTokens: verdict.cacheReadTokens,
      cacheWriteTokens: verdict.cacheWriteTokens,
      costUsd: costOf(verdict.usage, provider, parent.model).inputCostUsd,
      ...priced,
    };
  }
  const usage = { ...emptyUsage(), uncachedInputTokens: freshPromptTokens };
  return {
    at: call.at,
    choice: 'fresh',
    model: auxModel,
    inputTokens: freshPromptTokens,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: costOf(usage, provider, auxModel).inputCostUsd,
    ...priced,
  };
}
