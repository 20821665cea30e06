import type { Command } from 'commander';
import { bundledWorkloadNames, bundledWorkloadsDir } from '../../workloads/bundled-workloads.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import { type CliOutput, processOutput } from '../cli-options.js';
import { formatTable } from '../format-table.js';

/**
 * `cachet workloads`: the bundled workloads, one row each, with the name to pass to
 * `simulate`, `render` and `demo --only`.
 *
 * @example
 * cachet workloads
 */
export function registerWorkloadsCommand(program: Command, output: CliOutput = processOutput): Command {
  return program
    .command('workloads')
    .description('list the bundled workloads (names for simulate, render and demo --only)')
    .action(async () => {
      process.exitCode = await runWorkloads(output);
    });
}

export async function runWorkloads(output: CliOutput = processOutput): Promise<number> {
  const rows: string[][] = [];
  for (const name of bundledWorkloadNames()) {
    const workload = await loadWorkload(name);
    const requests = workload.turns.reduce((sum, turn) => sum + turn.steps.length, 0);
    rows.push([name, `${workload.provider} ${workload.model}`, String(workload.turns.length), String(requests), workload.title]);
  }
  output.out(formatTable(['name', 'provider and model', 'turns', 'requests', 'title'], rows));
  output.out(
    `\nfiles in ${bundledWorkloadsDir()}; run one with \`cachet simulate <name>\`, or pass your own YAML/JSON file (docs/workloads.md).`,
  );
  return 0;
}
