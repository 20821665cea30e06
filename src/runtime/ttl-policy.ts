import { ANTHROPIC_CACHE_PRICING, type AnthropicTtl } from '../providers/anthropic/models.js';

const FIVE_MINUTES = 5 * 60_000;
const ONE_HOUR = 60 * 60_000;

export interface TtlPolicyInput {
  /** Gaps between consecutive requests of the session so far, in ms. */
  gapsMs: readonly number[];
  /**
   * Gaps seen in earlier sessions of the same deployment (for example the request times of
   * past sessions in the trace store), in ms. They count like the session's own gaps, so a
   * deployment whose users pause can start on 1 hour instead of paying one full re-write at
   * the session's first pause. Without them the policy is purely online.
   */
  priorGapsMs?: readonly number[];
  /** Tokens the cache will hold after this request (its cacheable prefix). */
  prefixTokens: number;
  /** Tokens this request writes (new since the previous entry). */
  newTokens: number;
  /** Price multipliers on the input rate; Anthropic's by default. */
  pricing?: { write5m: number; write1h: number; read: number };
}

export interface TtlChoice {
  ttl: AnthropicTtl;
  reason: string;
  /** Share of past gaps that outlived 5 minutes but not an hour. */
  pauseShare: number;
}

/**
 * Choose the history breakpoint's TTL from the session's own rhythm. A 1-hour entry costs
 * `write1h - write5m` more per written token (0.75× the input rate on Anthropic) and saves,
 * whenever the next gap falls between 5 minutes and an hour, re-writing the whole prefix instead
 * of reading it (`write5m - read` = 1.15×). With `p` the share of past gaps in that window,
 * 1 hour pays when `p × 1.15 × prefix > 0.75 × new`. A session that has never paused stays at
 * 5 minutes; one that pauses now and then switches as soon as the prefix makes it worth it.
 * Online, the first pause always finds a 5-minute entry expired (one full re-write); gaps from
 * earlier sessions (`priorGapsMs`) remove that cost when the deployment's users do pause.
 *
 * @example
 * chooseHistoryTtl({ gapsMs: [30_000, 420_000, 40_000], prefixTokens: 20_000, newTokens: 600 }).ttl; // '1h'
 */
export function chooseHistoryTtl(input: TtlPolicyInput): TtlChoice {
  const pricing = input.pricing ?? ANTHROPIC_CACHE_PRICING;
  const gaps = input.priorGapsMs ? [...input.priorGapsMs, ...input.gapsMs] : input.gapsMs;
  const pauses = gaps.filter((gap) => gap > FIVE_MINUTES && gap <= ONE_HOUR).length;
  const pauseShare = gaps.length === 0 ? 0 : pauses / gaps.length;
  const expectedSaving = pauseShare * (pricing.write5m - pricing.read) * input.prefixTokens;
  const extraWriteCost = (pricing.write1h - pricing.write5m) * input.newTokens;
  if (pauseShare > 0 && expectedSaving > extraWriteCost) {
    return {
      ttl: '1h',
      pauseShare,
      reason: `${pauses} of ${gaps.length} gaps${input.priorGapsMs?.length ? ` (${input.priorGapsMs.length} from earlier sessions)` : ''} lasted 5–60 min: keeping ${input.prefixTokens} tokens an hour is expected to save more than the 1-hour write premium on ${input.newTokens} new tokens`,
    };
  }
  return {
    ttl: '5m',
    pauseShare,
    reason:
      pauseShare === 0 ? 'no gap between 5 and 60 minutes so far' : 'the 1-hour write premium outweighs the expected re-writes',
  };
}
