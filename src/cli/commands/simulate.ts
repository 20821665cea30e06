import { writeFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import type { ProviderId } from '../../providers/adapter.js';
import { PROVIDER_IDS } from '../../providers/registry.js';
import {
  type CompactionHook,
  type SimulationResult,
  simulateWorkload,
  simulationModel,
} from '../../simulate/simulate-workload.js';
import { simulationRequirements } from '../../simulate/simulation-requirements.js';
import { STRATEGY_NAMES, type StrategyName } from '../../simulate/strategy.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import { type CliOutput, MODELS_FILE_OPTION, parseProvider, parseStrategy, processOutput } from '../cli-options.js';
import { CliUsageError } from '../cli-usage-error.js';
import { estimatedCountsNote, missingToRun } from '../requirement-notes.js';
import { simulationJson, simulationText } from '../simulation-report.js';
import { unpricedModelWarning } from '../unpriced-model-warning.js';

export interface SimulateCommandOptions {
  provider?: ProviderId;
  model?: string;
  strategy?: StrategyName;
  json?: boolean;
  events?: string;
  compaction?: boolean;
  /** Context window for `--compaction`, in tokens. */
  window?: number;
}

/**
 * Builds the `--compaction` hook (the compaction module supplies it; without one the flag is not
 * offered). Without `windowTokens` the model's own window is used.
 */
export type CompactionHookFactory = (options: { provider: ProviderId; model: string; windowTokens?: number }) => CompactionHook;

/**
 * `cachet simulate <workload> [--provider P] [--model M] [--strategy S] [--json] [--events FILE]`.
 *
 * @example
 * cachet simulate coding-agent --strategy markers --json
 */
export function registerSimulateCommand(
  program: Command,
  compaction?: CompactionHookFactory,
  output: CliOutput = processOutput,
): Command {
  const command = program
    .command('simulate')
    .description('run one workload through one strategy against the provider cache model')
    .argument('<workload>', 'a bundled workload name (see `cachet workloads`) or a YAML/JSON workload file')
    .option('--provider <provider>', `${PROVIDER_IDS.join(', ')} (default: the workload’s)`, parseProvider)
    .option('--model <model>', 'model id (default: the workload’s, or a counterpart on another provider)')
    .option('--strategy <strategy>', STRATEGY_NAMES.join(', '), parseStrategy, 'cachet')
    .option('--json', 'print exactly one JSON object with per-request figures and totals')
    .option('--events <file>', "write Cachet's events as JSON lines to this file")
    .option(MODELS_FILE_OPTION.flags, MODELS_FILE_OPTION.description);
  if (compaction) {
    command
      .option('--compaction', 'compact history between requests (cachet strategy)')
      .option('--window <tokens>', "context window for --compaction, in tokens (default: the model's window)", parseWindow);
  }
  return command.action(async (workload: string, options: SimulateCommandOptions) => {
    process.exitCode = await runSimulate(workload, options, compaction, output);
  });
}

export async function runSimulate(
  workloadName: string,
  options: SimulateCommandOptions,
  compaction: CompactionHookFactory | undefined,
  output: CliOutput = processOutput,
): Promise<number> {
  if (options.window !== undefined && !options.compaction) {
    throw new CliUsageError('--window only applies with --compaction (add --compaction, or drop --window)');
  }
  const workload = await loadWorkload(workloadName);
  for (const warning of workload.warnings) output.err(`warning: ${warning.text}\n`);
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  if (options.events) bus.onAny((event) => events.push(event));
  const warnings = new WarningCollector(bus);
  const provider = options.provider ?? workload.provider;
  // The model the simulation runs (a counterpart when the provider is switched): the compaction
  // hook must size windows and prices for that model, not the workload's.
  const model = options.model ?? simulationModel(workload, provider);
  const requirements = simulationRequirements(provider, model);
  const missing = missingToRun(requirements, `simulating ${workload.name} on ${provider} ${model}`);
  if (missing) throw missing;
  const estimated = estimatedCountsNote(requirements);
  if (estimated) output.err(`note: ${estimated}\n`);
  const unpriced = unpricedModelWarning(provider, model);
  if (unpriced) output.err(`warning: ${unpriced}\n`);
  const result = simulateWorkload(workload, {
    provider,
    model,
    strategy: options.strategy ?? 'cachet',
    bus,
    ...(options.compaction && compaction
      ? {
          compaction: compaction({
            provider,
            model,
            ...(options.window === undefined ? {} : { windowTokens: options.window }),
          }),
        }
      : {}),
  });
  if (options.events)
    await writeFile(options.events, events.map((event) => JSON.stringify(event)).join('\n') + (events.length ? '\n' : ''));
  output.out(options.json ? JSON.stringify(simulationJson(result)) : simulationText(result));
  for (const line of warnings.lines()) output.err(`warning: ${line}\n`);
  if (options.compaction) {
    output.err(`${warnings.compactionSummary()}\n`);
    output.err(`${summaryCallsLine(result.summaries)}\n`);
    const windowTokens = options.window;
    const over = windowTokens === undefined ? [] : result.requests.filter((request) => request.inputTokens > windowTokens);
    if (windowTokens !== undefined && over.length > 0) {
      const smallest = Math.min(...over.map((request) => request.inputTokens));
      output.err(
        `error: --window ${windowTokens} cannot be met: ${over.length} of ${result.requests.length} requests stay larger after compaction (the smallest of them ${smallest} tokens)\n`,
      );
      return EXIT_REQUEST_NOT_MET;
    }
  }
  return 0;
}

/** Exit code when the simulation ran but cannot satisfy what was asked (a window too small). */
export const EXIT_REQUEST_NOT_MET = 1;

const SHOWN_WARNINGS = 5;

/** Collects `warning.raised` and compaction outcomes from the bus for one summary on stderr. */
class WarningCollector {
  private readonly counts = new Map<string, number>();
  private applied = 0;
  private readonly skipped = new Map<string, number>();
  /** Pauses timed by the cache (`compaction.planned` with `timing`), per choice. */
  private readonly timed = new Map<string, number>();

  constructor(bus: EventBus) {
    bus.onAny((event) => {
      if (event.type === 'warning.raised') {
        const line = `${event.payload.source}: ${event.payload.message}`;
        this.counts.set(line, (this.counts.get(line) ?? 0) + 1);
      } else if (event.type === 'compaction.applied') {
        this.applied += 1;
      } else if (event.type === 'compaction.planned' && event.payload.timing) {
        const choice = event.payload.timing.choice;
        this.timed.set(choice, (this.timed.get(choice) ?? 0) + 1);
      } else if (event.type === 'compaction.skipped') {
        this.skipped.set(event.payload.reason, (this.skipped.get(event.payload.reason) ?? 0) + 1);
      }
    });
  }

  /** Each distinct warning once, with how many requests raised it; the first few only. */
  lines(): string[] {
    const distinct = [...this.counts].map(([line, count]) => (count > 1 ? `${line} (${count} times)` : line));
    if (distinct.length <= SHOWN_WARNINGS) return distinct;
    const rest = distinct.length - SHOWN_WARNINGS;
    return [...distinct.slice(0, SHOWN_WARNINGS), `... and ${rest} more (write them all with --events FILE)`];
  }

  compactionSummary(): string {
    const skipped = [...this.skipped].map(([reason, count]) => `${count} ${reason}`).join(', ');
    const timed = [...this.timed].map(([choice, count]) => `${count} ${choice}`).join(', ');
    return `compaction: ${this.applied} applied${skipped ? `, skipped: ${skipped}` : ', none skipped'}${timed ? `; pauses timed: ${timed}` : ''}`;
  }
}

function parseWindow(value: string): number {
  const tokens = Number(value);
  if (!Number.isInteger(tokens) || tokens < 1000)
    throw new InvalidArgumentError('expected a whole number of tokens (at least 1000)');
  return tokens;
}

/** The billed summary calls of a `--compaction` run: how many, which way, their cost, and both routes' expected prices. */
function summaryCallsLine(summaries: SimulationResult['summaries']): string {
  const forks = summaries.filter((summary) => summary.choice === 'fork').length;
  const sum = (pick: (summary: SimulationResult['summaries'][number]) => number | null) =>
    summaries.reduce((total, summary) => total + (pick(summary) ?? 0), 0).toFixed(4);
  return `summary calls billed: ${summaries.length} (${forks} fork, ${summaries.length - forks} fresh), $${sum((summary) => summary.costUsd)}; expected fork $${sum((summary) => summary.forkInputCostUsd)} vs fresh $${sum((summary) => summary.freshInputCostUsd)}`;
}
