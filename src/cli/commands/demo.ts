import type { Command } from 'commander';
import { EventBus } from '../../events/event-bus.js';
import { type SimulationResult, simulateWorkload } from '../../simulate/simulate-workload.js';
import { simulationBaseline } from '../../simulate/simulation-baseline.js';
import {
  mergeRequirements,
  type SimulationRequirements,
  simulationRequirements,
} from '../../simulate/simulation-requirements.js';
import { STRATEGY_NAMES } from '../../simulate/strategy.js';
import { openTraceStore } from '../../trace/open-trace-store.js';
import { recordEvents } from '../../trace/record-events.js';
import { DEFAULT_TRACE_DB } from '../../trace/sqlite-trace-store.js';
import { bundledWorkloadNames } from '../../workloads/bundled-workloads.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import type { Workload } from '../../workloads/workload.js';
import { type CliOutput, MODELS_FILE_OPTION, processOutput } from '../cli-options.js';
import { CliUsageError } from '../cli-usage-error.js';
import { DEMO_LEGEND, demoTable, demoVerdict } from '../demo-report.js';
import { estimatedCountsNote, missingToRun } from '../requirement-notes.js';
import { serveHint } from '../serve-hint.js';

export interface DemoCommandOptions {
  /** Trace store: SQLite file or postgres:// URL (default `$CACHET_DB` or `.cachet/traces.db`). */
  db?: string;
  /** False: write no traces (`--no-trace`). */
  trace?: boolean;
  /** Only workloads whose name contains one of these. */
  only?: string[];
}

/**
 * `cachet demo`: every bundled workload through the three strategies on its default provider
 * and model, with a table per workload and a one-line verdict. No network, no API key.
 *
 * @example
 * npm run demo
 * npm run cachet -- demo --only coding-agent --no-trace
 * npm run cachet -- demo --db /tmp/demo-traces.db && npm run cachet -- serve --db /tmp/demo-traces.db
 */
export function registerDemoCommand(program: Command, output: CliOutput = processOutput): Command {
  return program
    .command('demo')
    .description(
      `run every bundled workload through ${STRATEGY_NAMES.join(', ')} and the hindsight oracle, and compare what each costs`,
    )
    .option(
      '--db <path|url>',
      'trace store for the runs: SQLite file or postgres:// URL (env CACHET_DB), as `serve --db`',
      process.env.CACHET_DB ?? DEFAULT_TRACE_DB,
    )
    .option('--no-trace', 'do not write traces')
    .option('--only <names...>', 'only workloads whose name contains one of these')
    .option(MODELS_FILE_OPTION.flags, MODELS_FILE_OPTION.description)
    .action(async (options: DemoCommandOptions) => {
      process.exitCode = await runDemo(options, output);
    });
}

export async function runDemo(options: DemoCommandOptions, output: CliOutput = processOutput): Promise<number> {
  const bundled = bundledWorkloadNames();
  const names = bundled.filter((name) => !options.only || options.only.some((part) => name.includes(part)));
  if (names.length === 0) {
    throw new CliUsageError(
      `no bundled workload matches --only ${(options.only ?? []).join(' ')} (bundled: ${bundled.join(', ')}; see \`cachet workloads\`)`,
    );
  }
  const workloads = await runnableWorkloads(names, output);
  const bus = new EventBus();
  const location = options.db ?? process.env.CACHET_DB ?? DEFAULT_TRACE_DB;
  const trace = options.trace === false ? null : await openTrace(location, bus, output);
  const runId = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const total = workloads.length * STRATEGY_NAMES.length;
  let run = 0;
  output.out(DEMO_LEGEND);
  try {
    for (const workload of workloads) {
      const results: SimulationResult[] = [];
      // The ideal and the oracle are the same for every strategy: measured once per workload.
      const baseline = simulationBaseline(workload, workload.provider, workload.model);
      for (const strategy of STRATEGY_NAMES) {
        run++;
        const label = `[${run}/${total}] ${workload.name} · ${strategy}`;
        const started = performance.now();
        results.push(
          simulateWorkload(workload, {
            strategy,
            baseline,
            bus,
            sessionId: `demo-${runId}/${workload.name}/${strategy}`,
            labels: { run: `demo-${runId}` },
            onProgress: (done, count) => progress(output, `${label} ${done}/${count} requests`, done === count),
          }),
        );
        if (output.errIsTty) output.err(` (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
        await trace?.recorder.flush();
      }
      output.out(
        `\n${workload.title} — ${workload.provider} ${workload.model}\n${demoTable(results)}\n${demoVerdict(results)}\n`,
      );
    }
  } finally {
    if (trace) {
      await trace.recorder.stop();
      await trace.store.close();
      const serve = serveHint(location === DEFAULT_TRACE_DB ? '' : ` --db ${trace.store.location}`);
      output.err(`traces: ${trace.store.location} (see them with \`${serve}\`)\n`);
    }
  }
  return 0;
}

/**
 * Load the workloads and check up front what the install lacks: one line naming the packages
 * that would make estimated counts exact, one per workload that cannot run without a package.
 */
async function runnableWorkloads(names: readonly string[], output: CliOutput): Promise<Workload[]> {
  const loaded: { workload: Workload; requirements: SimulationRequirements }[] = [];
  for (const name of names) {
    const workload = await loadWorkload(name);
    for (const warning of workload.warnings) output.err(`warning: ${warning.text}\n`);
    loaded.push({ workload, requirements: simulationRequirements(workload.provider, workload.model) });
  }
  const estimated = estimatedCountsNote(mergeRequirements(loaded.map((entry) => entry.requirements)));
  if (estimated) output.err(`note: ${estimated}\n`);
  const runnable: Workload[] = [];
  for (const { workload, requirements } of loaded) {
    const missing = missingToRun(requirements, `the ${workload.name} workload (${workload.provider} ${workload.model})`);
    if (missing) output.err(`skipped: ${missing.message}\n`);
    else runnable.push(workload);
  }
  if (runnable.length > 0) return runnable;
  throw (
    missingToRun(mergeRequirements(loaded.map((entry) => entry.requirements)), 'cachet demo') ??
    new CliUsageError('no workload to run')
  );
}

async function openTrace(location: string, bus: EventBus, output: CliOutput) {
  try {
    const store = await openTraceStore(location);
    return { store, recorder: recordEvents(bus, store) };
  } catch (error) {
    output.err(`warning: traces not written (${error instanceof Error ? error.message : String(error)})\n`);
    return null;
  }
}

function progress(output: CliOutput, text: string, done: boolean): void {
  if (output.errIsTty) output.err(`\r\u001b[2K${text}`);
  else if (done) output.err(`${text}\n`);
}
