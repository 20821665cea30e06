import { ValidationError } from '../../model/errors.js';
import type { GeminiModelRow } from './models.js';

/** What the rest of the session is expected to look like (from the workload, the trace store or the caller). */
export interface GeminiSessionForecast {
  /** Requests still to come in this session, this one included. */
  expectedRemainingRequests: number;
  /** Typical time between two requests, in ms. */
  expectedGapMs: number;
}

export interface GeminiCachingInput extends GeminiSessionForecast {
  /** Tokens an explicit cache would hold (system instruction, tools, session static messages). */
  staticTokens: number;
  row: GeminiModelRow;
  /** Input price, USD per million tokens (the model's price row). */
  inputPerMTok: number;
  /**
   * Share of requests on which implicit caching is expected to hit the static prefix [0.5].
   * Google promises none; calibrate it from the `cachedContentTokenCount` your sessions report.
   */
  implicitHitRate?: number;
}

export interface GeminiCachingChoice {
  mode: 'implicit' | 'explicit';
  /** TTL to create or extend an explicit cache with: the expected gap with a margin, at least a minute. */
  ttlSeconds: number;
  /** Expected cost of the static prefix over the remaining requests, USD, each way. */
  implicitCostUsd: number;
  explicitCostUsd: number;
  reason: string;
}

export const DEFAULT_IMPLICIT_HIT_RATE = 0.5;
/** The TTL covers the expected gap times this margin, so one late request does not find the cache gone. */
const TTL_MARGIN = 1.5;
const MINIMUM_TTL_SECONDS = 60;

/**
 * Choose between implicit caching and an explicit `cachedContents` entry for the static prefix
 * of a session, by expected cost over the requests still to come (the same reasoning as the
 * Anthropic TTL policy: pay a known premium only when the session's rhythm says it returns).
 *
 * - implicit: every request pays the prefix at the input rate, less the read discount on the
 *   share of requests that hit (`implicitHitRate`; 0 when the model has no implicit caching or
 *   the prefix is below its minimum).
 * - explicit: one creation at the input rate, storage per hour for the session's expected
 *   duration (requests × gap, plus one TTL after the last), and every request reads the prefix
 *   at the cached rate. Impossible below the model's explicit minimum.
 *
 * @example
 * chooseGeminiCaching({ staticTokens: 30_000, row: resolveGeminiModel('gemini-2.5-pro'), inputPerMTok: 1.25,
 *   expectedRemainingRequests: 40, expectedGapMs: 20_000 }).mode; // 'explicit'
 */
export function chooseGeminiCaching(input: GeminiCachingInput): GeminiCachingChoice {
  const requests = input.expectedRemainingRequests;
  if (!Number.isFinite(requests) || requests < 0) {
    throw new ValidationError('expectedRemainingRequests', 'a finite number ≥ 0', `got ${requests}`);
  }
  if (!Number.isFinite(input.expectedGapMs) || input.expectedGapMs < 0) {
    throw new ValidationError('expectedGapMs', 'a finite number of ms ≥ 0', `got ${input.expectedGapMs}`);
  }
  const { row, staticTokens } = input;
  const ttlSeconds = Math.max(MINIMUM_TTL_SECONDS, Math.ceil((input.expectedGapMs * TTL_MARGIN) / 1000));
  const prefixUsd = (staticTokens / 1_000_000) * input.inputPerMTok;
  const hitRate =
    row.implicitCaching && staticTokens >= row.implicitMinimumTokens ? (input.implicitHitRate ?? DEFAULT_IMPLICIT_HIT_RATE) : 0;
  const implicitCostUsd = requests * prefixUsd * (1 - hitRate * (1 - row.readMultiplier));
  const hours = (Math.max(0, requests - 1) * input.expectedGapMs + ttlSeconds * 1000) / 3_600_000;
  const storageUsd = (staticTokens / 1_000_000) * row.storagePerMTokHour * hours;
  const explicitCostUsd = prefixUsd + storageUsd + requests * prefixUsd * row.readMultiplier;
  const figures = `implicit ≈ $${implicitCostUsd.toFixed(4)} vs explicit ≈ $${explicitCostUsd.toFixed(4)} over ${requests} requests`;
  if (staticTokens < row.explicitMinimumTokens) {
    return {
      mode: 'implicit',
      ttlSeconds,
      implicitCostUsd,
      explicitCostUsd: Number.POSITIVE_INFINITY,
      reason: `${staticTokens} static tokens are below the ${row.explicitMinimumTokens}-token minimum of an explicit cache for ${row.family}`,
    };
  }
  if (explicitCostUsd < implicitCostUsd) {
    return {
      mode: 'explicit',
      ttlSeconds,
      implicitCostUsd,
      explicitCostUsd,
      reason: `${figures}: a guaranteed cache pays for its storage`,
    };
  }
  return {
    mode: 'implicit',
    ttlSeconds,
    implicitCostUsd,
    explicitCostUsd,
    reason: `${figures}: storage and creation outweigh the surer reads`,
  };
}
