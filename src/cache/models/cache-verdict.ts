import type { CacheBreakCause } from '../../events/catalog.js';
import type { Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/provider-id.js';
import type { BlockCoreMemo } from '../wire/block-core-memo.js';
import type { CacheRules } from '../wire/cache-rules.js';
import type { NormalizedWireBody } from '../wire/wire-unit.js';

/** What a provider cache model says about one request. */
export interface CacheVerdict {
  /** Position of the request in the judged sequence, from 0. */
  index: number;
  /** Request start on the workload's clock, ms since the epoch. */
  at: number;
  /** Every input token: read + written + uncached. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  /** Anthropic 1-hour writes (2× the input rate). */
  cacheWrite1hTokens: number;
  cacheWriteTokens: number;
  /** Input billed at the full rate. */
  uncachedTokens: number;
  /** True when counts come from an estimator (Anthropic's tokenizer is not public). */
  tokensEstimated: boolean;
  /** Name of the counter or tokenizer the counts come from. */
  counter: string;
  /** Where the read prefix ends and when that entry was written; null on a miss. */
  readFrom: { path: string; writtenAt: number } | null;
  /** Why the request read less than the previous request left cached; null when it did not. */
  missCause: CacheBreakCause | null;
  /** Tokens lost to `missCause`, as the break detector measured them (absent when the model does not say). */
  missedTokens?: number;
  /** Sentences for people: what was read, written, and why anything was missed. */
  explanation: string[];
  /** Problems with the body (markers the provider rejects or ignores). */
  warnings: string[];
  /** Set when the provider would reject the request (too many breakpoints, TTL order). */
  rejected: string | null;
  /** The same figures as normalized `Usage` (output tokens 0: models judge input only). */
  usage: Usage;
}

/** Per-request input to a model: the request's start time and, for local engines, its reply. */
export interface JudgeContext {
  /** Request start on the workload's clock, ms since the epoch. */
  at: number;
  /**
   * The assistant message the request produced (local engines keep it in the slot). A string is
   * the reply's text; an object is a Chat Completions assistant message (content,
   * reasoning_content, tool_calls).
   */
  reply?: string | Record<string, unknown>;
  /**
   * Told the body as the model normalised it (`normalizeWireBody(body, format)`), once per judge,
   * by the models that normalise: a caller that needs the same normalisation (a break watch, a
   * miss cause) takes it instead of normalising the body a second time. Normalising a session's
   * body walks its whole history; the simulator did it twice per request.
   */
  onNormalized?: (body: NormalizedWireBody, format: ProviderId) => void;
  /**
   * The body's normalisation, made by the caller: taken instead of normalising the body when its
   * format is the one the model reads the body as (models under Anthropic rules; others normalise).
   * It must equal `normalizeWireBody(body, format)`: `normalizedWithMovedMarkers` makes it for a
   * body that is another body with its cache markers moved (a plan's body judged beside the
   * client's), from the other body's normalisation, without reading the history again.
   */
  normalized?: NormalizedWireBody;
}

/** A provider's cache, judged one request at a time in session order. */
export interface CacheModel {
  readonly rules: CacheRules;
  judge(body: unknown, context: JudgeContext): CacheVerdict;
  /** Forget every cache entry (a cold provider). */
  reset(): void;
  /**
   * A model holding a copy of this one's state (entries, previous body, request count) that goes
   * on independently: judging the same bodies on both gives the same verdicts. `blockMemo` is the
   * copy's own memo of blocks (see `AnthropicCacheModelOptions.blockMemo`). Absent on models whose
   * state cannot be copied.
   */
  fork?(options?: CacheModelForkOptions): CacheModel;
}

/** What a fork of a cache model does not take from the original. */
export interface CacheModelForkOptions {
  /** The copy's memo of the last body's blocks (Anthropic rules); none is shared with the original. */
  blockMemo?: BlockCoreMemo;
}

/** What a model decides for a request; `buildVerdict` derives the rest (write sum, uncached, usage). */
export type VerdictFigures = Omit<CacheVerdict, 'cacheWriteTokens' | 'uncachedTokens' | 'usage'>;

/** Fill the derived fields (write sum, uncached, usage) of a verdict. */
export function buildVerdict(figures: VerdictFigures): CacheVerdict {
  const cacheWriteTokens = figures.cacheWrite5mTokens + figures.cacheWrite1hTokens;
  const uncachedTokens = Math.max(0, figures.inputTokens - figures.cacheReadTokens - cacheWriteTokens);
  return {
    ...figures,
    cacheWriteTokens,
    uncachedTokens,
    usage: {
      uncachedInputTokens: uncachedTokens,
      cacheReadTokens: figures.cacheReadTokens,
      cacheWrite5mTokens: figures.cacheWrite5mTokens,
      cacheWrite1hTokens: figures.cacheWrite1hTokens,
      outputTokens: 0,
      reasoningTokens: 0,
      raw: null,
    },
  };
}

/**
 * Judge a whole session in order with a fresh model state.
 *
 * @example
 * const verdicts = judgeSequence(createAnthropicCacheModel(), bodies.map((body, i) => ({ body, at: t0 + i * 30_000 })));
 */
export function judgeSequence(model: CacheModel, requests: ReadonlyArray<{ body: unknown } & JudgeContext>): CacheVerdict[] {
  model.reset();
  return requests.map(({ body, ...context }) => model.judge(body, context));
}

export function formatTokens(tokens: number): string {
  // Whole numbers grouped by hand: `toLocaleString` goes through ICU, and every verdict's
  // explanation formats several counts. Same text as en-US for any safe integer.
  if (!Number.isSafeInteger(tokens) || Object.is(tokens, -0)) return tokens.toLocaleString('en-US');
  const digits = String(Math.abs(tokens));
  let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let index = grouped.length; index < digits.length; index += 3) grouped += `,${digits.slice(index, index + 3)}`;
  return tokens < 0 ? `-${grouped}` : grouped;
}

export function formatAge(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = seconds / 60;
  if (minutes < 60) return `${minutes.toFixed(1).replace(/\.0$/, '')} min`;
  return `${(minutes / 60).toFixed(1).replace(/\.0$/, '')} h`;
}
