/**
 * assemble() + token counting for the next request of synthetic sessions of 100, 1,000 and
 * 5,000 turns (tool loops, realistic tool results; ~500K tokens at 1,000 turns, 2.6M at 5,000).
 * Each size runs in its own process so peak memory is per size. Targets (issues 2 and 20):
 * ≤ 1 ms at 1,000 turns; per-request cost flat: the 5,000-turn figures ≤ 2× the 100-turn ones.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assemble } from '../src/session/assemble.js';
import { anthropicEstimator } from '../src/tokens/anthropic-estimator.js';
import { countRequestTokens } from '../src/tokens/count-request-tokens.js';
import { openAITokenCounter } from '../src/tokens/openai-token-counter.js';
import type { TokenCounter } from '../src/tokens/token-counter.js';
import { syntheticSession } from './support/synthetic-session.js';

const SIZES = [100, 1_000, 5_000];
const REPEATS = 300;
const STEPS = 30;

interface SizeResult {
  turns: number;
  messages: number;
  blocks: number;
  tokens: number;
  firstCountMs: number;
  nextMedianMs: { o200k: number; estimate: number };
  assembleOnlyMs: number;
  stepMedianMs: { o200k: number; estimate: number };
  heapMb: number;
  peakRssMb: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** CPU ms of `action` (wall time would count the other processes of a shared machine). */
function time(action: () => void): number {
  const started = process.cpuUsage();
  action();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/** Median time of assemble + count for the same next request (tail re-evaluated each time). */
function nextRequestMedian(build: ReturnType<typeof syntheticSession>, counter: TokenCounter): number {
  const samples: number[] = [];
  for (let run = 0; run < REPEATS; run++) {
    samples.push(time(() => countRequestTokens(assemble(build.session), counter)));
  }
  return median(samples);
}

/** Median time of assemble + count after each of STEPS new tool steps (new content is tokenized). */
function toolStepMedian(build: ReturnType<typeof syntheticSession>, counter: TokenCounter): number {
  const samples: number[] = [];
  for (let step = 0; step < STEPS; step++) {
    build.nextToolStep();
    samples.push(time(() => countRequestTokens(assemble(build.session), counter)));
  }
  return median(samples);
}

function measure(turns: number): SizeResult {
  const o200k = openAITokenCounter('o200k_base');
  o200k.countText('warm up the encoder');
  const build = syntheticSession({ turns, endInToolLoop: true });
  const estimator = anthropicEstimator();
  let tokens = 0;
  const firstCountMs = time(() => {
    tokens = countRequestTokens(assemble(build.session), o200k).total;
  });
  countRequestTokens(assemble(build.session), estimator);
  const request = assemble(build.session);
  const nextMedianMs = { o200k: nextRequestMedian(build, o200k), estimate: nextRequestMedian(build, estimator) };
  const assembleSamples: number[] = [];
  for (let run = 0; run < REPEATS; run++) assembleSamples.push(time(() => assemble(build.session)));
  // Steps grow the session; measure them last, on a separate build per counter.
  const stepBuildO200k = syntheticSession({ turns, endInToolLoop: true });
  countRequestTokens(assemble(stepBuildO200k.session), o200k);
  const stepBuildEstimate = syntheticSession({ turns, endInToolLoop: true });
  countRequestTokens(assemble(stepBuildEstimate.session), estimator);
  const stepMedianMs = { o200k: toolStepMedian(stepBuildO200k, o200k), estimate: toolStepMedian(stepBuildEstimate, estimator) };
  (globalThis as { gc?: () => void }).gc?.();
  return {
    turns,
    messages: request.messages.length,
    blocks: request.blocks.length,
    tokens,
    firstCountMs,
    nextMedianMs,
    assembleOnlyMs: median(assembleSamples),
    stepMedianMs,
    heapMb: process.memoryUsage().heapUsed / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

const workerFlag = process.argv.indexOf('--turns');
if (workerFlag >= 0) {
  process.stdout.write(JSON.stringify(measure(Number(process.argv[workerFlag + 1]))));
} else {
  const results: SizeResult[] = [];
  for (const turns of SIZES) {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), '--turns', String(turns)],
      {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      },
    );
    if (child.status !== 0) {
      console.error(child.stderr);
      process.exit(1);
    }
    results.push(JSON.parse(child.stdout) as SizeResult);
  }
  const fixed = (value: number, digits = 3) => value.toFixed(digits);
  console.log('next request = assemble() + countRequestTokens() for the request after the last tool result');
  console.log(`(CPU ms, median of ${REPEATS} runs; "tool step" = median over ${STEPS} new tool steps, new content tokenized)\n`);
  console.log(
    'turns  messages  blocks  tokens(o200k)  first count ms  next ms o200k  next ms estimate  assemble ms  step ms o200k  step ms estimate  heap MB  peak RSS MB',
  );
  for (const result of results) {
    console.log(
      [
        String(result.turns).padStart(5),
        String(result.messages).padStart(9),
        String(result.blocks).padStart(7),
        String(result.tokens).padStart(14),
        fixed(result.firstCountMs, 1).padStart(15),
        fixed(result.nextMedianMs.o200k).padStart(14),
        fixed(result.nextMedianMs.estimate).padStart(17),
        fixed(result.assembleOnlyMs).padStart(12),
        fixed(result.stepMedianMs.o200k).padStart(14),
        fixed(result.stepMedianMs.estimate).padStart(17),
        fixed(result.heapMb, 1).padStart(8),
        fixed(result.peakRssMb, 1).padStart(12),
      ].join(' '),
    );
  }
  const hundred = results.find((result) => result.turns === 100);
  const thousand = results.find((result) => result.turns === 1_000);
  const fiveThousand = results.find((result) => result.turns === 5_000);
  if (hundred && thousand) {
    console.log(
      `\n1,000 turns next request: ${fixed(thousand.nextMedianMs.o200k)} ms (target ≤ 1 ms) ${thousand.nextMedianMs.o200k <= 1 ? 'MET' : 'NOT MET'}`,
    );
  }
  if (hundred && fiveThousand) {
    const ratios = {
      'next request': fiveThousand.nextMedianMs.o200k / hundred.nextMedianMs.o200k,
      assemble: fiveThousand.assembleOnlyMs / hundred.assembleOnlyMs,
      'tool step': fiveThousand.stepMedianMs.o200k / hundred.stepMedianMs.o200k,
    };
    const met = Object.values(ratios).every((ratio) => ratio <= 2);
    const listed = Object.entries(ratios).map(([name, ratio]) => `${name} ${fixed(ratio, 2)}×`);
    console.log(`ratio 5000/100 turns (target ≤ 2× each): ${listed.join(', ')} ${met ? 'MET' : 'NOT MET'}`);
  }
}
