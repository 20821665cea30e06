import { costOf, uncachedCostOf } from '../cache/cost.js';
import type { CacheVerdict } from '../cache/models/cache-verdict.js';
import { unitTokens } from '../cache/wire/cache-rules.js';
import { normalizeWireBody } from '../cache/wire/normalize-wire-body.js';
import type { CanonicalRequest } from '../model/request.js';
import type { ProviderId } from '../providers/adapter.js';
import type { sharedCounter } from '../runtime/prepare-request.js';
import { recordUsage } from '../runtime/record-usage.js';
import type { WorkloadStep, WorkloadTurn } from '../workloads/workload.js';
import type { JudgedBody } from './judged-body.js';
import { missCauseOf } from './miss-cause.js';
import type { adapterFor } from './provider-adapters.js';
import type { SimulatedRequest } from './simulation-totals.js';
import type { StrategyDriver } from './strategy.js';
import { requestFigures } from './subagent-call.js';

/**
 * One judged request priced at its own model's rates (a turn may switch the model), recorded on
 * the strategy's session (`usage.recorded`), and its figures as the result lists them.
 */
export function recordJudgedRequest(input: {
  driver: StrategyDriver;
  provider: ProviderId;
  adapter: ReturnType<typeof adapterFor>;
  counter: ReturnType<typeof sharedCounter>;
  built: ReturnType<StrategyDriver['request']>;
  verdict: CacheVerdict;
  turn: WorkloadTurn;
  step: WorkloadStep;
  idealTokens: number;
  /** With compaction: the reference layout's ideal read, beside the compacted one. */
  uncompactedIdealTokens: number | null;
  /** This request's body and the previous one's, with the normalisations the cache model made. */
  judged: JudgedBody;
  previous: JudgedBody | null;
  historyRewritten: boolean;
}): { request: SimulatedRequest; priced: boolean } {
  const { driver, provider, built, verdict, turn, step, idealTokens } = input;
  const cost = costOf(verdict.usage, provider, built.canonical.model);
  const uncached = uncachedCostOf(verdict.usage, provider, built.canonical.model);
  recordUsage(driver.session, verdict.usage, {
    turn: turn.turn,
    step: step.step,
    at: step.at,
    model: built.canonical.model,
    price: () => ({ costUsd: cost.costUsd, uncachedCostUsd: uncached.costUsd }),
  });
  const request: SimulatedRequest = {
    ...requestFigures(turn, step, verdict, idealTokens),
    ...(input.uncompactedIdealTokens === null ? {} : { uncompactedIdealCacheReadTokens: input.uncompactedIdealTokens }),
    paddingReadTokens: paddingReadOf(verdict, built, input.adapter, provider, input.counter),
    costUsd: cost.costUsd,
    uncachedCostUsd: uncached.costUsd,
    missCause: missCauseOf(verdict, idealTokens, input.previous, input.judged, provider, input.historyRewritten),
    ttlReason: built.ttlReason,
    paddingApplied: built.metadata.padding ? built.metadata.padding.applied : null,
    paddingReason: built.metadata.padding ? built.metadata.padding.reason : null,
    subagent: false,
  };
  return { request, priced: cost.priced && !cost.free };
}

/**
 * Padding tokens a request read from the cache: what the adapter's padding adds (the body's
 * tokens minus those of the same request converted without padding), capped by the read. Padding sits inside the
 * first cache entry, so any read of that entry reads all of it.
 */
function paddingReadOf(
  verdict: CacheVerdict,
  built: {
    canonical: CanonicalRequest;
    body: unknown;
    metadata: { padding?: { applied: boolean } | null };
  },
  adapter: ReturnType<typeof adapterFor>,
  provider: ProviderId,
  counter: ReturnType<typeof sharedCounter>,
): number {
  if (verdict.cacheReadTokens === 0 || !built.metadata.padding?.applied) return 0;
  const unpadded = adapter.convertRequest(built.canonical, { padding: 'never' }).body;
  const tokensOf = (body: unknown) =>
    normalizeWireBody(body, provider).units.reduce((total, unit) => total + unitTokens(unit, counter), 0);
  return Math.min(verdict.cacheReadTokens, Math.max(0, tokensOf(built.body) - tokensOf(unpadded)));
}
