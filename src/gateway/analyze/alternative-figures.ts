import type { CacheVerdict } from '../../cache/models/cache-verdict.js';
import type { Usage } from '../../model/usage.js';

/** What the request did: its usage (reported, else modelled) and the model's verdict on the body that was sent. */
export interface ActualRequest {
  usage: Usage;
  verdict: CacheVerdict;
}

/** Input tokens of a usage: read, written and uncached. */
export function inputTokensOf(usage: Usage): number {
  return usage.cacheReadTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens + usage.uncachedInputTokens;
}

/**
 * The usage an alternative body (Cachet's plan, or the client's own markers) would have had, on
 * the actual request's scale: the actual usage plus what the cache model says the alternative
 * changes (its verdict against the verdict on the body sent), scaled by the provider's token
 * count over the model's. Both verdicts are the model's, so what the model does not see — the
 * output tokens, the provider's own token counts, an entry the server lost — weighs the same on
 * both sides; an alternative judged as the body sent is exactly the actual. The alternative reads
 * no more than the larger of the actual read and its own modelled read (so a read the server gave
 * the body sent, unseen by the model, is not counted twice). Without reported usage the actual is
 * the model's verdict, and this is the alternative's own usage.
 */
export function alternativeUsage(actual: ActualRequest, alternative: CacheVerdict): Usage {
  const { usage, verdict } = actual;
  if (alternative === verdict) return usage;
  if (usage === verdict.usage) return alternative.usage;
  const input = inputTokensOf(usage);
  const scale = verdict.inputTokens > 0 ? input / verdict.inputTokens : 1;
  const shifted = (reported: number, planned: number, judged: number) => Math.max(0, reported + scale * (planned - judged));
  const read = Math.min(
    input,
    shifted(usage.cacheReadTokens, alternative.cacheReadTokens, verdict.cacheReadTokens),
    Math.max(usage.cacheReadTokens, scale * alternative.cacheReadTokens),
  );
  const modelled = alternative.usage;
  const judged = verdict.usage;
  const write1h = Math.min(
    input - read,
    shifted(usage.cacheWrite1hTokens, modelled.cacheWrite1hTokens, judged.cacheWrite1hTokens),
  );
  const write5m = Math.min(
    input - read - write1h,
    shifted(usage.cacheWrite5mTokens, modelled.cacheWrite5mTokens, judged.cacheWrite5mTokens),
  );
  return {
    ...usage,
    cacheReadTokens: read,
    cacheWrite1hTokens: write1h,
    cacheWrite5mTokens: write5m,
    uncachedInputTokens: input - read - write1h - write5m,
  };
}
