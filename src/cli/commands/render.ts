import type { Command } from 'commander';
import type { ProviderId } from '../../providers/adapter.js';
import { PROVIDER_IDS } from '../../providers/registry.js';
import { simulateWorkload } from '../../simulate/simulate-workload.js';
import { STRATEGY_NAMES, type StrategyName } from '../../simulate/strategy.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import { type CliOutput, parseProvider, parseStrategy, processOutput } from '../cli-options.js';

export interface RenderCommandOptions {
  provider: ProviderId;
  model?: string;
  strategy?: StrategyName;
}

/**
 * `cachet render <workload> --provider P [--strategy S]`: every wire body of the session, one
 * JSON object per line, exactly as the strategy would send them.
 *
 * @example
 * cachet render coding-agent --provider anthropic | head -n 2
 */
export function registerRenderCommand(program: Command, output: CliOutput = processOutput): Command {
  return program
    .command('render')
    .description('print the wire bodies of a workload, one JSON object per line')
    .argument('<workload>', 'a bundled workload name or a YAML/JSON workload file')
    .requiredOption('--provider <provider>', PROVIDER_IDS.join(', '), parseProvider)
    .option('--model <model>', 'model id (default: the workload’s, or a counterpart on another provider)')
    .option('--strategy <strategy>', STRATEGY_NAMES.join(', '), parseStrategy, 'cachet')
    .action(async (workload: string, options: RenderCommandOptions) => {
      process.exitCode = await runRender(workload, options, output);
    });
}

export async function runRender(
  workloadName: string,
  options: RenderCommandOptions,
  output: CliOutput = processOutput,
): Promise<number> {
  const workload = await loadWorkload(workloadName);
  for (const warning of workload.warnings) output.err(`warning: ${warning.text}\n`);
  const lines: string[] = [];
  simulateWorkload(workload, {
    provider: options.provider,
    model: options.model,
    strategy: options.strategy ?? 'cachet',
    onBody: (body) => lines.push(JSON.stringify(body)),
  });
  output.out(lines.join('\n'));
  return 0;
}
