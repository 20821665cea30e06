import { ValidationError } from '../model/errors.js';

/** Context-utilisation thresholds, as shares of the model's window (0..1), in rising order. */
export interface CompactionThresholds {
  /** Begin monitoring; cold-cache pruning may run from here. */
  monitor: number;
  /** Light compression: deduplicate repeated reads, truncate large old tool results. */
  light: number;
  /** Full priority-aware compression, then a structured summary if still needed. */
  full: number;
  /** Emergency: compress now, whatever the cache state. */
  emergency: number;
}

/** Price multipliers on the model's input rate, used by the cost model (Anthropic 5m cache by default). */
export interface CachePriceMultipliers {
  write: number;
  read: number;
}

export interface CompactionOptions {
  /** The model's context window in tokens. */
  windowTokens: number;
  thresholds: CompactionThresholds;
  /** Utilisation a full or emergency compaction aims to get down to. */
  targetUtilisation: number;
  /** Share of the window reserved for the most recent messages, never compressed. */
  tailBudgetShare: number;
  /** Provider cache lifetime in ms; idle time beyond it means the cache is cold. */
  cacheTtlMs: number;
  /** How many more requests the session is expected to make (the cost model's horizon). */
  expectedRemainingRequests: number;
  prices: CachePriceMultipliers;
  /** Anti-thrashing: a cycle saving less than this share of the request is skipped. */
  minSavingShare: number;
  /** Anti-thrashing: requests that must pass after an applied compaction before the next (except emergencies). */
  minIntervalRequests: number;
  /** A tool output above this many tokens is kept as head + tail at ingestion. */
  ingestionThresholdTokens: number;
  ingestionHeadTokens: number;
  ingestionTailTokens: number;
  /** Light layer: an old tool result above this many tokens is truncated to head + tail. */
  lightTruncateTokens: number;
  /** Masking leaves results at or below this size alone (a placeholder would save nothing). */
  maskMinTokens: number;
  /** Tool results of this many most recent turns outside the tail are `important` (masked last). */
  importantRecentTurns: number;
  /** A single input above this many tokens is refused with `OversizedInputError`. */
  maxInputTokens: number;
  /** Images are kept only in this many most recent messages that carry media. */
  mediaWindowMessages: number;
}

export const DEFAULT_COMPACTION_OPTIONS: Omit<CompactionOptions, 'windowTokens'> = {
  thresholds: { monitor: 0.4, light: 0.5, full: 0.7, emergency: 0.9 },
  targetUtilisation: 0.4,
  tailBudgetShare: 0.2,
  cacheTtlMs: 5 * 60_000,
  expectedRemainingRequests: 20,
  // Anthropic 5-minute cache: write 1.25x, read 0.1x the input rate (CACHE-FACTS.md, 2026).
  prices: { write: 1.25, read: 0.1 },
  minSavingShare: 0.1,
  minIntervalRequests: 3,
  ingestionThresholdTokens: 6_000,
  ingestionHeadTokens: 1_500,
  ingestionTailTokens: 500,
  lightTruncateTokens: 2_000,
  maskMinTokens: 200,
  importantRecentTurns: 3,
  maxInputTokens: 120_000,
  mediaWindowMessages: 2,
};

export type CompactionOptionsInput = { windowTokens: number } & Partial<
  Omit<CompactionOptions, 'windowTokens' | 'thresholds' | 'prices'>
> & {
    thresholds?: Partial<CompactionThresholds>;
    prices?: Partial<CachePriceMultipliers>;
  };

/** Merge user options over the defaults and check they make sense. */
export function resolveCompactionOptions(input: CompactionOptionsInput): CompactionOptions {
  if (typeof input !== 'object' || input === null) throw new ValidationError('compaction', 'an options object');
  const options: CompactionOptions = {
    ...DEFAULT_COMPACTION_OPTIONS,
    ...input,
    thresholds: { ...DEFAULT_COMPACTION_OPTIONS.thresholds, ...input.thresholds },
    prices: { ...DEFAULT_COMPACTION_OPTIONS.prices, ...input.prices },
  };
  positiveInteger(options.windowTokens, 'compaction.windowTokens');
  const { monitor, light, full, emergency } = options.thresholds;
  const ordered = [monitor, light, full, emergency];
  for (const [index, name] of (['monitor', 'light', 'full', 'emergency'] as const).entries()) {
    share(ordered[index] as number, `compaction.thresholds.${name}`);
  }
  if (!(monitor <= light && light <= full && full <= emergency)) {
    throw new ValidationError('compaction.thresholds', 'monitor <= light <= full <= emergency', ordered.join(' / '));
  }
  share(options.targetUtilisation, 'compaction.targetUtilisation');
  share(options.tailBudgetShare, 'compaction.tailBudgetShare');
  share(options.minSavingShare, 'compaction.minSavingShare');
  if (options.tailBudgetShare >= options.targetUtilisation) {
    // A protected tail as large as the target would make every full compaction miss it.
    throw new ValidationError('compaction.tailBudgetShare', `below targetUtilisation (${options.targetUtilisation})`);
  }
  nonNegative(options.cacheTtlMs, 'compaction.cacheTtlMs');
  nonNegative(options.expectedRemainingRequests, 'compaction.expectedRemainingRequests');
  nonNegative(options.prices.write, 'compaction.prices.write');
  nonNegative(options.prices.read, 'compaction.prices.read');
  nonNegative(options.minIntervalRequests, 'compaction.minIntervalRequests');
  for (const key of [
    'ingestionThresholdTokens',
    'ingestionHeadTokens',
    'ingestionTailTokens',
    'lightTruncateTokens',
    'maxInputTokens',
  ] as const) {
    positiveInteger(options[key], `compaction.${key}`);
  }
  nonNegative(options.maskMinTokens, 'compaction.maskMinTokens');
  nonNegative(options.importantRecentTurns, 'compaction.importantRecentTurns');
  nonNegative(options.mediaWindowMessages, 'compaction.mediaWindowMessages');
  if (options.ingestionHeadTokens + options.ingestionTailTokens >= options.ingestionThresholdTokens) {
    throw new ValidationError('compaction.ingestionHeadTokens', 'head + tail below ingestionThresholdTokens');
  }
  return options;
}

function positiveInteger(value: number, path: string): void {
  if (!Number.isInteger(value) || value <= 0) throw new ValidationError(path, 'a positive integer', `got ${String(value)}`);
}
function nonNegative(value: number, path: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ValidationError(path, 'a non-negative number', `got ${String(value)}`);
  }
}
function share(value: number, path: string): void {
  if (typeof value !== 'number' || !(value > 0 && value <= 1))
    throw new ValidationError(path, 'a share between 0 and 1', `got ${String(value)}`);
}
