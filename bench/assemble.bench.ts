/**
 * assemble() + token counting for the next request of synthetic sessions of 100, 1,000 and
 * 5,000 turns (tool loops, realistic tool results; ~500K tokens at 1,000 turns, 2.6M at 5,000).
 * Each size runs in its own process so peak memory is per size. Targets (issues 2 and 20):
 * ≤ 1 ms at 1,000 turns; per-request cost flat: the 5,000-turn figures ≤ 2× the 100-turn ones.
 *
 * Rows, all CPU time (`process.cpuUsage`, not wall) with the o200k tokenizer unless named:
 * - next request: the same request after the last tool result, again (its blocks already counted);
 * - tool step: a new tool call and result appended, then assemble + count (the new content is tokenized);
 * - turn start: a new user turn whose first request persists a turn-scoped tail item into the
 *   opening message (`resolveTurnTail`, as `prepareRequest` does), then assemble + count;
 * - prepareRequest (for reference, not part of the target): the library's whole request cycle with the
 *   Anthropic adapter and an event bus — assemble, count, convert, `request.assembled` with its block delta.
 * Each row prints the median and the mean (the mean keeps rare whole-history work and GC).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EventBus } from '../src/events/event-bus.js';
import { anthropicAdapter } from '../src/providers/anthropic/index.js';
import { prepareRequest } from '../src/runtime/prepare-request.js';
import { assemble } from '../src/session/assemble.js';
import { ANTHROPIC_TAIL_PRICING } from '../src/session/choose-tail-scope.js';
import { resolveTurnTail } from '../src/session/resolve-turn-tail.js';
import { anthropicEstimator } from '../src/tokens/anthropic-estimator.js';
import { countRequestTokens } from '../src/tokens/count-request-tokens.js';
import { openAITokenCounter } from '../src/tokens/openai-token-counter.js';
import type { TokenCounter } from '../src/tokens/token-counter.js';
import { syntheticSession } from './support/synthetic-session.js';

const SIZES = (process.env.CACHET_ASSEMBLE_TURNS ?? '100,1000,5000').split(',').map(Number);
const REPEATS = 300;
const STEPS = 100;
const TURNS = 60;

interface Figure {
  median: number;
  mean: number;
}

interface SizeResult {
  turns: number;
  messages: number;
  blocks: number;
  tokens: number;
  firstCountMs: number;
  next: { o200k: Figure; estimate: Figure };
  assembleOnly: Figure;
  step: { o200k: Figure; estimate: Figure };
  turnStart: Figure;
  prepare: { step: Figure; turnStart: Figure };
  heapMb: number;
  peakRssMb: number;
}

type Build = ReturnType<typeof syntheticSession>;

function figure(values: number[]): Figure {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median, mean: values.reduce((sum, value) => sum + value, 0) / values.length };
}

/** CPU ms of `action` (wall time would count the other processes of a shared machine). */
function time(action: () => void): number {
  const started = process.cpuUsage();
  action();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/** The same next request again (tail re-evaluated each time, every block already counted). */
function nextRequest(build: Build, counter: TokenCounter): Figure {
  const samples: number[] = [];
  for (let run = 0; run < REPEATS; run++) samples.push(time(() => countRequestTokens(assemble(build.session), counter)));
  return figure(samples);
}

/** A fresh build of `turns` turns whose first request has been counted with `counter`. */
function warmBuild(turns: number, counter: TokenCounter, bus?: EventBus): Build {
  // The previous series' garbage is collected first, so a series' mean counts its own work.
  (globalThis as { gc?: () => void }).gc?.();
  const build = syntheticSession({ turns, endInToolLoop: true, ...(bus ? { bus } : {}) });
  countRequestTokens(assemble(build.session), counter);
  return build;
}

/** Assemble + count after each of STEPS new tool steps (new content is tokenized). */
function toolSteps(turns: number, counter: TokenCounter): Figure {
  const build = warmBuild(turns, counter);
  const samples: number[] = [];
  for (let step = 0; step < STEPS; step++) {
    build.nextToolStep();
    samples.push(time(() => countRequestTokens(assemble(build.session), counter)));
  }
  return figure(samples);
}

/** The first request of each of TURNS new turns, a turn-scoped tail item persisted into its opening message. */
function turnStarts(turns: number, counter: TokenCounter): Figure {
  const build = warmBuild(turns, counter);
  const samples: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    build.nextTurn();
    const tail = [
      {
        kind: 'working-context' as const,
        text: `open files: src/turn-${turn}.ts`,
        scope: 'turn' as const,
        position: 'end' as const,
      },
    ];
    samples.push(
      time(() => {
        const resolved = resolveTurnTail(build.session, {
          tail,
          countTokens: (text) => counter.countText(text),
          pricing: ANTHROPIC_TAIL_PRICING,
        });
        countRequestTokens(assemble(build.session, { resolvedTail: resolved.items }), counter);
      }),
    );
    build.nextToolStep();
    countRequestTokens(assemble(build.session), counter);
  }
  return figure(samples);
}

/** `prepareRequest` with the Anthropic adapter: a turn start, then a tool step, TURNS times. */
function prepareCycle(turns: number, counter: TokenCounter): { step: Figure; turnStart: Figure } {
  const build = warmBuild(turns, counter, new EventBus());
  let turn = turns;
  let step = 0;
  prepareRequest(build.session, anthropicAdapter, { turn, step: step++, counter });
  const starts: number[] = [];
  const steps: number[] = [];
  for (let round = 0; round < TURNS; round++) {
    build.nextTurn();
    turn += 1;
    step = 0;
    const tail = [
      {
        kind: 'working-context' as const,
        text: `open files: src/turn-${round}.ts`,
        scope: 'turn' as const,
        position: 'end' as const,
      },
    ];
    starts.push(time(() => prepareRequest(build.session, anthropicAdapter, { turn, step: step++, counter, tail })));
    build.nextToolStep();
    steps.push(time(() => prepareRequest(build.session, anthropicAdapter, { turn, step: step++, counter })));
  }
  return { step: figure(steps), turnStart: figure(starts) };
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
  const next = { o200k: nextRequest(build, o200k), estimate: nextRequest(build, estimator) };
  const assembleSamples: number[] = [];
  for (let run = 0; run < REPEATS; run++) assembleSamples.push(time(() => assemble(build.session)));
  // Steps and turns grow a session; each series runs on a build of its own.
  const step = { o200k: toolSteps(turns, o200k), estimate: toolSteps(turns, estimator) };
  const turnStart = turnStarts(turns, o200k);
  const prepare = prepareCycle(turns, o200k);
  (globalThis as { gc?: () => void }).gc?.();
  return {
    turns,
    messages: request.messages.length,
    blocks: request.blocks.length,
    tokens,
    firstCountMs,
    next,
    assembleOnly: figure(assembleSamples),
    step,
    turnStart,
    prepare,
    heapMb: process.memoryUsage().heapUsed / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

function runSize(turns: number): SizeResult {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), '--turns', String(turns)],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (child.status !== 0) {
    console.error(child.stderr);
    process.exit(1);
  }
  return JSON.parse(child.stdout) as SizeResult;
}

const fixed = (value: number, digits = 3) => value.toFixed(digits);

/** The rows of the table: a name and how to read the figure from a size's result. */
const ROWS: Array<[string, (result: SizeResult) => Figure, boolean]> = [
  ['next request, o200k', (result) => result.next.o200k, true],
  ['next request, estimate', (result) => result.next.estimate, false],
  ['assemble() alone', (result) => result.assembleOnly, true],
  ['tool step, o200k', (result) => result.step.o200k, true],
  ['tool step, estimate', (result) => result.step.estimate, false],
  ['turn start, o200k', (result) => result.turnStart, true],
  ['prepareRequest tool step (reference)', (result) => result.prepare.step, false],
  ['prepareRequest turn start (reference)', (result) => result.prepare.turnStart, false],
];

function report(results: SizeResult[]): void {
  console.log(
    `CPU ms per request, median / mean (next request: ${REPEATS} runs; tool step: ${STEPS} steps; turn start: ${TURNS} turns)\n`,
  );
  console.log('turns  messages  blocks  tokens(o200k)  first count ms  heap MB  peak RSS MB');
  for (const result of results) {
    console.log(
      [
        String(result.turns).padStart(5),
        String(result.messages).padStart(9),
        String(result.blocks).padStart(7),
        String(result.tokens).padStart(14),
        fixed(result.firstCountMs, 1).padStart(15),
        fixed(result.heapMb, 1).padStart(8),
        fixed(result.peakRssMb, 1).padStart(12),
      ].join(' '),
    );
  }
  const first = results[0] as SizeResult;
  const last = results.at(-1) as SizeResult;
  const ratioHeader = results.length > 1 ? `  ${last.turns}÷${first.turns} median / mean` : '';
  console.log(`\n${'row'.padEnd(40)}${results.map((result) => `${result.turns} turns`.padStart(18)).join('')}${ratioHeader}`);
  let met = true;
  for (const [name, read, target] of ROWS) {
    const cells = results.map((result) => `${fixed(read(result).median)} / ${fixed(read(result).mean)}`.padStart(18));
    let ratio = '';
    if (results.length > 1) {
      const median = read(last).median / read(first).median;
      const mean = read(last).mean / read(first).mean;
      if (target && (median > 2 || mean > 2)) met = false;
      ratio = `  ${fixed(median, 2)}× / ${fixed(mean, 2)}×`;
    }
    console.log(`${name.padEnd(40)}${cells.join('')}${ratio}`);
  }
  const thousand = results.find((result) => result.turns === 1_000);
  if (thousand) {
    const ms = thousand.step.o200k.median;
    console.log(`\n1,000 turns, tool step: ${fixed(ms)} ms (target ≤ 1 ms) ${ms <= 1 ? 'MET' : 'NOT MET'}`);
  }
  if (first.turns === 100 && last.turns === 5_000) {
    console.log(
      `ratio 5000÷100 turns, median and mean of the o200k rows and assemble() (target ≤ 2× each): ${met ? 'MET' : 'NOT MET'}`,
    );
  }
}

const workerFlag = process.argv.indexOf('--turns');
if (workerFlag >= 0) {
  process.stdout.write(JSON.stringify(measure(Number(process.argv[workerFlag + 1]))));
} else {
  report(SIZES.map(runSize));
}
