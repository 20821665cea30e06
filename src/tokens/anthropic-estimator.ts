import type { CanonicalRequest } from '../model/request.js';
import { BlockMemo } from './block-memo.js';
import { detectContentKind } from './content-kind.js';
import { countableParts } from './countable-parts.js';
import { anthropicImageTokens } from './image-tokens.js';
import { DEFAULT_MEDIA_TOKENS, type MediaTokenEstimates } from './media-token-estimates.js';
import { requestItems } from './request-items.js';
import type { ContentKind, CountableItem, TokenCounter } from './token-counter.js';

/** Media costs for Anthropic: base64 PNGs measured by the documented resizing rule, other media fixed. */
const ANTHROPIC_MEDIA_TOKENS: MediaTokenEstimates = { ...DEFAULT_MEDIA_TOKENS, measureImage: anthropicImageTokens };

/** Characters per token for each content kind. */
export type CharsPerToken = Record<ContentKind, number>;

/**
 * Characters per token fitted on the `fit` half of the bench corpus against o200k_base
 * (`npm run bench`, tokenizer-error.bench.ts, 2026-11-21): technical English prose from package
 * documentation, TypeScript/JavaScript source, JSON files. Anthropic's tokenizer is not
 * public, so o200k_base is the public proxy; `calibrate` re-fits from reported usage.
 */
export const DEFAULT_CHARS_PER_TOKEN: CharsPerToken = { prose: 4.9, code: 4.03, json: 3.33 };

/**
 * Characters from U+2E80 on (CJK, Hangul, kana...) cost about one token each in modern BPE
 * vocabularies, far from any Latin ratio; they are counted apart (an unmeasured default).
 */
const WIDE_CHAR_START = 0x2e80;
const TOKENS_PER_WIDE_CHAR = 1;
/** Any character from `WIDE_CHAR_START` on (code units, as `charCodeAt` reads them). */
const ANY_WIDE_CHAR = /[\u2e80-\uffff]/;

/**
 * Characters from `WIDE_CHAR_START` on. Most text has none: one regex test (native, and
 * immediate on text V8 holds one byte per character) decides that, not a loop over every character.
 */
function wideChars(text: string): number {
  if (!ANY_WIDE_CHAR.test(text)) return 0;
  let wide = 0;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) >= WIDE_CHAR_START) wide++;
  return wide;
}

/** A raw estimate split by kind: tokens before calibration, indexed prose, code, json. */
type KindVector = [number, number, number];
const KIND_INDEX: Record<ContentKind, 0 | 1 | 2> = { prose: 0, code: 1, json: 2 };
const KINDS: readonly ContentKind[] = ['prose', 'code', 'json'];

/** Calibration never moves a kind's scale outside this range: one odd usage report must not wreck estimates. */
const MIN_SCALE = 0.5;
const MAX_SCALE = 2;

export interface AnthropicEstimatorOptions {
  charsPerToken?: Partial<CharsPerToken>;
  /** Media costs; defaults to base64 PNGs measured from their header, other media at `DEFAULT_MEDIA_TOKENS`. */
  media?: MediaTokenEstimates;
  /**
   * How strongly the default ratios resist re-fitting, in usage reports: the defaults count as
   * this many reports. Defaults to 0.05, so one report of a single kind moves that kind most of
   * the way; the prior mainly decides how a report of mixed text is shared between kinds.
   */
  priorWeight?: number;
  /**
   * Remember each block's raw count by the block's hash [true]. A caller that memoises counts
   * itself (the cache models keep them by unit text) passes false: hashing a new block to look it
   * up costs about as much as counting it.
   */
  memoizeBlocks?: boolean;
}

/** A calibrated estimator: counts are estimates (`exact: false`) that improve with reported usage. */
export interface AnthropicEstimator extends TokenCounter {
  /** Multipliers applied per kind to the default ratios, fitted from reported usage (1 before any). */
  readonly scales: Readonly<Record<ContentKind, number>>;
  /** Number of usage reports the fit has seen. */
  readonly observations: number;
  /**
   * Re-fit from a provider-reported count for a known text (for example a `count_tokens`
   * response, or the input tokens of a request whose text is known). Mixed text is split into
   * paragraphs and each is classified, so one report informs every kind it contains.
   */
  calibrate(observedText: string, reportedTokens: number): void;
  /**
   * Re-fit from a whole request and the provider's reported input tokens (uncached + cache
   * read + cache write). Uses the memoised per-block estimates, so it is cheap per turn.
   */
  calibrateRequest(request: CanonicalRequest, reportedInputTokens: number): void;
}

/**
 * Token estimates for Anthropic models, whose tokenizer is not public: characters per token
 * by content kind (prose, code, JSON, detected cheaply per block), fitted against o200k_base as
 * a public proxy and re-fitted per kind from provider-reported usage (relative ridge regression
 * toward the defaults, so one report adjusts without overfitting).
 *
 * @example
 * const estimator = anthropicEstimator();
 * estimator.countText('The quick brown fox jumps over the lazy dog.'); // ≈ 9
 * // After a response: usage.input_tokens etc. for the request just sent.
 * estimator.calibrateRequest(request, totalInputTokens(usage));
 */
export function anthropicEstimator(options: AnthropicEstimatorOptions = {}): AnthropicEstimator {
  const ratios: CharsPerToken = { ...DEFAULT_CHARS_PER_TOKEN, ...options.charsPerToken };
  for (const kind of KINDS) {
    if (!(ratios[kind] > 0)) throw new RangeError(`charsPerToken.${kind} must be a positive number`);
  }
  const media = options.media ?? ANTHROPIC_MEDIA_TOKENS;
  const lambda = options.priorWeight ?? 0.05;
  if (!(lambda > 0)) throw new RangeError('priorWeight must be a positive number');
  const memo = new BlockMemo<KindVector>();
  const memoizeBlocks = options.memoizeBlocks ?? true;
  // Normal equations of the relative ridge fit: (Σ vvᵀ + λI) s = Σ v + λ·1, with v = raw / reported.
  const gram = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  const moment = [0, 0, 0];
  let scale: KindVector = [1, 1, 1];
  let observations = 0;
  let revision = 0;

  const rawOfText = (text: string, kind: ContentKind | undefined, into: KindVector): void => {
    if (text.length === 0) return;
    const resolved = kind ?? detectContentKind(text);
    const wide = wideChars(text);
    into[KIND_INDEX[resolved]] += (text.length - wide) / ratios[resolved] + wide * TOKENS_PER_WIDE_CHAR;
  };
  const rawOfItem = (item: CountableItem): KindVector => {
    const parts = countableParts(item, media);
    const vector: KindVector = [0, 0, 0];
    for (const part of parts.texts) rawOfText(part.text, part.kind, vector);
    // Media costs are fixed estimates, not text: they ride on the prose scale.
    vector[0] += parts.fixedTokens;
    return vector;
  };
  const rawOf = memoizeBlocks ? (item: CountableItem) => memo.get(item, rawOfItem) : rawOfItem;
  const apply = (vector: KindVector): number => {
    const estimate = vector[0] * scale[0] + vector[1] * scale[1] + vector[2] * scale[2];
    return estimate > 0 ? Math.max(1, Math.round(estimate)) : 0;
  };
  const observe = (vector: KindVector, reported: number): void => {
    if (!Number.isFinite(reported) || reported <= 0) throw new RangeError('reportedTokens must be a positive number');
    // Relative least squares: each report weighs the same whatever its size, since estimate
    // errors are proportional. Dividing the raw vector by the report makes the target 1.
    const relative = vector.map((value) => value / reported);
    for (const [row, rowValue] of relative.entries()) {
      const gramRow = gram[row] as number[];
      for (const [column, columnValue] of relative.entries())
        gramRow[column] = (gramRow[column] as number) + rowValue * columnValue;
      moment[row] = (moment[row] as number) + rowValue;
    }
    observations++;
    scale = solveRidge(gram, moment, lambda);
    revision++;
  };

  return {
    name: 'anthropic-estimate',
    exact: false,
    get revision() {
      return revision;
    },
    get scales() {
      return { prose: scale[0], code: scale[1], json: scale[2] };
    },
    get observations() {
      return observations;
    },
    countText(text, kind) {
      const vector: KindVector = [0, 0, 0];
      rawOfText(text, kind, vector);
      return apply(vector);
    },
    countBlock: (block) => apply(rawOf(block)),
    calibrate(observedText, reportedTokens) {
      const vector: KindVector = [0, 0, 0];
      for (const paragraph of observedText.split(/\n{2,}/)) rawOfText(paragraph, undefined, vector);
      observe(vector, reportedTokens);
    },
    calibrateRequest(request, reportedInputTokens) {
      const vector: KindVector = [0, 0, 0];
      for (const item of requestItems(request)) {
        const raw = rawOf(item.item);
        vector[0] += raw[0];
        vector[1] += raw[1];
        vector[2] += raw[2];
      }
      observe(vector, reportedInputTokens);
    },
  };
}

/** Solve (G + λI) s = m + λ·1 for the three kind scales, clamped to a sane range. */
function solveRidge(gram: number[][], moment: number[], lambda: number): KindVector {
  const matrix = gram.map((row, index) => row.map((value, column) => value + (index === column ? lambda : 0)));
  const rhs = moment.map((value) => value + lambda);
  // Gaussian elimination with partial pivoting; the matrix is symmetric positive definite.
  for (let pivot = 0; pivot < 3; pivot++) {
    let best = pivot;
    for (let row = pivot + 1; row < 3; row++) {
      if (Math.abs((matrix[row] as number[])[pivot] as number) > Math.abs((matrix[best] as number[])[pivot] as number))
        best = row;
    }
    [matrix[pivot], matrix[best]] = [matrix[best] as number[], matrix[pivot] as number[]];
    [rhs[pivot], rhs[best]] = [rhs[best] as number, rhs[pivot] as number];
    const pivotRow = matrix[pivot] as number[];
    for (let row = pivot + 1; row < 3; row++) {
      const current = matrix[row] as number[];
      const factor = (current[pivot] as number) / (pivotRow[pivot] as number);
      for (let column = pivot; column < 3; column++)
        current[column] = (current[column] as number) - factor * (pivotRow[column] as number);
      rhs[row] = (rhs[row] as number) - factor * (rhs[pivot] as number);
    }
  }
  const solution: KindVector = [1, 1, 1];
  for (let row = 2; row >= 0; row--) {
    const current = matrix[row] as number[];
    let value = rhs[row] as number;
    for (let column = row + 1; column < 3; column++) value -= (current[column] as number) * solution[column as 0 | 1 | 2];
    solution[row as 0 | 1 | 2] = Math.min(MAX_SCALE, Math.max(MIN_SCALE, value / (current[row] as number)));
  }
  return solution;
}
