import type { Command } from 'commander';
import { EventBus } from '../../events/event-bus.js';
import {
  mergeRequirements,
  type SimulationRequirements,
  simulationRequirements,
} from '../../simulate/simulation-requirements.js';
import { STRATEGY_NAMES } from '../../simulate/strategy.js';
import { openTraceStore } from '../../trace/open-trace-store.js';
import { recordEvents } from '../../trace/record-events.js';
import { DEFAULT_TRACE_DB } from '../../trace/sqlite-trace-store.js';
import { STORE_CONTENT_MODES, type StoreContent } from '../../trace/store-content.js';
import { bundledWorkloadNames } from '../../workloads/bundled-workloads.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import type { Workload } from '../../workloads/workload.js';
import { type CliOutput, MODELS_FILE_OPTION, oneOf, processOutput } from '../cli-options.js';
import { CliUsageError } from '../cli-usage-error.js';
import { demoThreads, type RunningTask, runDemoPool } from '../demo-pool.js';
import { DEMO_LEGEND, demoTable, demoVerdict } from '../demo-report.js';
import { estimatedCountsNote, missingToRun } from '../requirement-notes.js';
import { serveHint } from '../serve-hint.js';
import { unpricedModelWarning } from '../unpriced-model-warning.js';

export interface DemoCommandOptions {
  /** Trace store: SQLite file or postgres:// URL (default `$CACHET_DB` or `.cachet/traces.db`). */
  db?: string;
  /** False: write no traces (`--no-trace`). */
  trace?: boolean;
  /** Only workloads whose name contains one of these. */
  only?: string[];
  /** How much prompt text the traces keep [full: the workloads are synthetic]. */
  storeContent?: StoreContent;
  /** Run the chosen workloads on this model instead of their own, on their own provider. */
  model?: string;
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
    .option(
      '--store-content <mode>',
      'prompt text kept in the traces: full (the default: bundled workloads hold no private text), hashes, none',
      oneOf(STORE_CONTENT_MODES),
      'full',
    )
    .option('--only <names...>', 'only workloads whose name contains one of these')
    .option(
      '--model <id>',
      'run the chosen workloads on this model instead of their own (their own provider), e.g. --only coding-agent --model claude-fable-5-1',
    )
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
  if (options.model !== undefined && options.model.trim() === '') throw new CliUsageError('--model needs a model id');
  const workloads = await runnableWorkloads(names, output, options.model);
  const bus = new EventBus();
  const location = options.db ?? process.env.CACHET_DB ?? DEFAULT_TRACE_DB;
  const trace = options.trace === false ? null : await openTrace(location, bus, output, options.storeContent);
  const runId = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const run = `demo-${runId}`;
  output.out(DEMO_LEGEND);
  try {
    await runDemoPool(
      {
        workloads: workloads.map((workload) => workload.name),
        strategies: STRATEGY_NAMES,
        run,
        sessionIdOf: (workload, strategy) => `${run}/${workload}/${strategy}`,
        events: trace !== null,
        ...(options.model === undefined ? {} : { model: options.model }),
      },
      demoThreads(workloads.length),
      {
        onProgress: (running, finished, total) => {
          if (output.errIsTty) output.err(`\r\u001b[2K${progressLine(running, finished, total)}`);
        },
        onRunDone: (done) => {
          if (!output.errIsTty) {
            output.err(
              `[${done.finishedRuns}/${done.totalRuns}] ${done.workload} · ${done.strategy} ${done.requests}/${done.requests} requests\n`,
            );
          }
        },
        onWorkload: async (index, results, events) => {
          // Events reach the trace store as a sequential run would publish them: run by run.
          for (const runEvents of events)
            for (const event of runEvents) bus.emit(event.type, event.sessionId, event.at, event.payload);
          await trace?.recorder.flush();
          const workload = workloads[index] as Workload;
          if (output.errIsTty) output.err('\r\u001b[2K');
          output.out(
            `\n${workload.title} — ${workload.provider} ${options.model ?? workload.model}\n${demoTable(results)}\n${demoVerdict(results)}\n`,
          );
        },
      },
    );
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
async function runnableWorkloads(names: readonly string[], output: CliOutput, model?: string): Promise<Workload[]> {
  const loaded: { workload: Workload; requirements: SimulationRequirements }[] = [];
  for (const name of names) {
    const workload = await loadWorkload(name);
    for (const warning of workload.warnings) output.err(`warning: ${warning.text}\n`);
    if (model !== undefined) {
      const unpriced = unpricedModelWarning(workload.provider, model);
      if (unpriced) output.err(`warning: ${workload.name}: ${unpriced}\n`);
    }
    loaded.push({ workload, requirements: simulationRequirements(workload.provider, model ?? workload.model) });
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

async function openTrace(location: string, bus: EventBus, output: CliOutput, storeContent: StoreContent = 'full') {
  try {
    const store = await openTraceStore(location, { storeContent });
    return { store, recorder: recordEvents(bus, store) };
  } catch (error) {
    output.err(`warning: traces not written (${error instanceof Error ? error.message : String(error)})\n`);
    return null;
  }
}

/** One line: runs finished, then what each thread is running and how far it is. */
function progressLine(running: readonly RunningTask[], finished: number, total: number): string {
  const parts = running.map((task) => `${task.workload} · ${task.what}${task.total > 0 ? ` ${task.done}/${task.total}` : ''}`);
  const line = `[${finished}/${total} runs] ${parts.join(' | ')}`;
  // Longer than the terminal, the line would wrap and the next redraw would clear only its end.
  const width = (process.stderr.columns || 100) - 1;
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
