import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import { CachetError } from '../../model/errors.js';
import { isPostgresLocation, openTraceStore } from '../../trace/open-trace-store.js';
import {
  type CheckFigures,
  CheckInputError,
  captureFigures,
  describeBreak,
  importFigures,
  storeFigures,
} from '../check/check-figures.js';
import { baselineOf, type CheckRules, judgeCheck, readBaseline } from '../check/judge-check.js';
import type { CommandOutput } from './import.js';

export interface CheckCommandOptions {
  db?: string;
  from?: string;
  minReadShare?: number;
  /** `--no-stable-prefix` sets false. */
  stablePrefix?: boolean;
  allowCause?: string[];
  baseline?: string;
  writeBaseline?: string;
  tolerance?: number;
  json?: boolean;
}

export const CHECK_FAILED_EXIT_CODE = 1;
export const CHECK_BAD_INPUT_EXIT_CODE = 2;

function parseShare(value: string): number {
  const share = Number(value);
  if (value.trim() === '' || !Number.isFinite(share) || share < 0 || share > 1) {
    throw new InvalidArgumentError('expected a share from 0 to 1, e.g. 0.8');
  }
  return share;
}

/**
 * `cachet check`: a CI gate on prompt caching. Exits 1 when the read share is below
 * `--min-read-share`, a request missed because its prefix changed, or the run regressed against
 * `--baseline`; 0 otherwise; 2 on bad input.
 *
 * @example
 * cachet check capture.jsonl --min-read-share 0.8
 * cachet check --db .cachet/traces.db --baseline cache-baseline.json
 * cachet check --from claude-code ./logs --min-read-share 0.5
 */
export function registerCheckCommand(program: Command): Command {
  return program
    .command('check')
    .description('CI gate: exit 1 when caching falls short (read share, a changed prefix, a regression)')
    .argument('[input]', 'a capture (cachet analyze input), or with --from a harness log file or directory')
    .option('--db <path|url>', 'judge a trace store instead (SQLite file or postgres:// URL)')
    .option('--from <harness>', 'judge harness logs: claude-code, codex, opencode or pi')
    .option('--min-read-share <r>', 'fail below this read share (0 to 1)', parseShare)
    .option('--no-stable-prefix', 'do not fail on misses whose cause changed the prefix (clock, tools, system, history…)')
    .option('--allow-cause <cause...>', 'prefix-changing causes to accept')
    .option('--baseline <file>', 'fail when worse than this baseline (written by --write-baseline)')
    .option('--write-baseline <file>', "write this run's figures as the next baseline")
    .option('--tolerance <r>', 'read-share drop against the baseline still accepted', parseShare, 0.02)
    .option('--json', 'print the verdict as one JSON object')
    .action(async (input: string | undefined, options: CheckCommandOptions) => {
      process.exitCode = await runCheck(input, options);
    });
}

export async function runCheck(
  input: string | undefined,
  options: CheckCommandOptions,
  output: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) },
): Promise<number> {
  try {
    const figures = await figuresOf(input, options);
    const rules: CheckRules = {
      ...(options.minReadShare === undefined ? {} : { minReadShare: options.minReadShare }),
      stablePrefix: options.stablePrefix !== false,
      allowCauses: options.allowCause ?? [],
      ...(options.baseline ? { baseline: await readBaseline(options.baseline) } : {}),
      tolerance: options.tolerance ?? 0.02,
    };
    const verdict = judgeCheck(figures, rules);
    if (options.writeBaseline) await writeFile(options.writeBaseline, `${JSON.stringify(baselineOf(figures), null, 2)}\n`);
    if (options.json) output.out(JSON.stringify(verdict));
    else for (const line of formatVerdict(verdict.passed, verdict.failures, figures)) output.out(line);
    return verdict.passed ? 0 : CHECK_FAILED_EXIT_CODE;
  } catch (error) {
    output.err(`cachet check: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof CachetError ? CHECK_BAD_INPUT_EXIT_CODE : CHECK_FAILED_EXIT_CODE;
  }
}

async function figuresOf(input: string | undefined, options: CheckCommandOptions): Promise<CheckFigures> {
  const given = [input !== undefined && options.from === undefined, options.db !== undefined, options.from !== undefined];
  if (given.filter(Boolean).length !== 1) {
    throw new CheckInputError('give one input: a capture file, --db <store>, or --from <harness> <path>');
  }
  if (options.from !== undefined) {
    if (input === undefined) throw new CheckInputError(`--from ${options.from}: give the log file or directory to read`);
    return importFigures(options.from, input);
  }
  if (options.db !== undefined) {
    // Checking only reads: a mistyped path must not become a new, empty store that passes.
    if (!isPostgresLocation(options.db) && !existsSync(options.db))
      throw new CheckInputError(`--db ${options.db}: no trace store there`);
    const store = await openTraceStore(options.db);
    try {
      return await storeFigures(store);
    } finally {
      await store.close();
    }
  }
  return captureFigures(input!);
}

function formatVerdict(passed: boolean, failures: readonly string[], figures: CheckFigures): string[] {
  const lines = [
    `${passed ? 'PASS' : 'FAIL'}: ${figures.requests} requests (${figures.input}), read share ${(figures.readShare * 100).toFixed(1)}%, cost $${figures.costUsd.toFixed(4)}`,
    ...failures.map((failure) => `  ✗ ${failure}`),
  ];
  const first = figures.firstBreak;
  if (first) {
    lines.push(`  first break: ${describeBreak(first)}`);
    if (first.before !== null || first.after !== null) {
      lines.push(`    before: ${first.before ?? '(none)'}`, `    after:  ${first.after ?? '(none)'}`);
    }
  }
  return lines;
}
