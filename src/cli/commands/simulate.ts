import { writeFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import type { ProviderId } from '../../providers/adapter.js';
import { PROVIDER_IDS } from '../../providers/registry.js';
import { type CompactionHook, simulateWorkload, simulationModel } from '../../simulate/simulate-workload.js';
import type { StrategyName } from '../../simulate/strategy.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import { type CliOutput, parseProvider, parseStrategy, processOutput } from '../cli-options.js';
import { simulationJson, simulationText } from '../simulation-report.js';

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
    .argument('<workload>', 'a bundled workload name (see `cachet demo`) or a YAML/JSON workload file')
    .option('--provider <provider>', `${PROVIDER_IDS.join(', ')} (default: the workload’s)`, parseProvider)
    .option('--model <model>', 'model id (default: the workload’s, or a counterpart on another provider)')
    .option('--strategy <strategy>', 'naive, markers or cachet', parseStrategy, 'cachet')
    .option('--json', 'print exactly one JSON object with per-request figures and totals')
    .option('--events <file>', "write Cachet's events as JSON lines to this file");
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
  const workload = await loadWorkload(workloadName);
  for (const warning of workload.warnings) output.err(`warning: ${warning.text}\n`);
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  if (options.events) bus.onAny((event) => events.push(event));
  const provider = options.provider ?? workload.provider;
  // The model the simulation runs (a counterpart when the provider is switched): the compaction
  // hook must size windows and prices for that model, not the workload's.
  const model = options.model ?? simulationModel(workload, provider);
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
  return 0;
}

function parseWindow(value: string): number {
  const tokens = Number(value);
  if (!Number.isInteger(tokens) || tokens < 1000)
    throw new InvalidArgumentError('expected a whole number of tokens (at least 1000)');
  return tokens;
}
