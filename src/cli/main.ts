import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { loadModelsFile, ModelsFileError } from '../cache/models-file.js';
import { createSimulationCompactionHook } from '../compaction/simulation-hook.js';
import { CachetError } from '../model/errors.js';
import { missingDependencyOf } from '../model/optional-dependency.js';
import { installUserModelRows } from '../providers/shared/user-model-rows.js';
import { ServeConfigError } from '../server/serve-config.js';
import { WorkloadError } from '../workloads/workload-error.js';
import { type CliOutput, processOutput } from './cli-options.js';
import { registerAnalyzeCommand } from './commands/analyze.js';
import { registerCheckCommand } from './commands/check.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerDiffCommand } from './commands/diff.js';
import { registerEmulateCommand } from './commands/emulate.js';
import { registerImportCommand } from './commands/import.js';
import { registerModelsCommand } from './commands/models.js';
import { registerProxyCommand } from './commands/proxy.js';
import { registerRenderCommand } from './commands/render.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSimulateCommand } from './commands/simulate.js';
import { registerWorkloadsCommand } from './commands/workloads.js';
import { packageVersion } from './package-version.js';

/** Exit codes: 0 done, 1 any failure, 2 a bad workload file or models file (or bad input file for `diff`, an unusable `serve` token/host, or a missing optional package). */
export const EXIT_BAD_WORKLOAD = 2;
export const EXIT_FAILURE = 1;

/** Build the `cachet` program with every subcommand registered. */
export function createProgram(output: CliOutput = processOutput): Command {
  const program = new Command()
    .name('cachet')
    .description('Cache-stable request assembly for LLM agents: simulate, compare and inspect prompt caching')
    .exitOverride()
    .configureOutput({ writeOut: (text) => output.out(text.replace(/\n$/, '')), writeErr: (text) => output.err(text) })
    .version(packageVersion(), '-V, --version', 'print the Cachet version')
    .showHelpAfterError('(run `cachet --help` for usage)');
  registerDemoCommand(program, output);
  registerSimulateCommand(program, (options) => createSimulationCompactionHook(options), output);
  registerRenderCommand(program, output);
  registerDiffCommand(program);
  registerServeCommand(program);
  registerProxyCommand(program);
  registerEmulateCommand(program);
  registerAnalyzeCommand(program);
  registerImportCommand(program);
  registerCheckCommand(program);
  registerWorkloadsCommand(program, output);
  registerModelsCommand(program, output);
  for (const command of program.commands) command.exitOverride();
  useModelsFileOption(program);
  return program;
}

/**
 * `--models-file FILE` on any command: its rows are in force while the command runs (for the
 * life of the process under `proxy`, which keeps serving after its action returns).
 */
function useModelsFileOption(program: Command): void {
  let restore: (() => void) | null = null;
  program.hook('preAction', async (_program, command) => {
    const file = command.opts().modelsFile as string | undefined;
    if (file) restore = installUserModelRows((await loadModelsFile(file)).rows);
  });
  program.hook('postAction', (_program, command) => {
    if (command.name() !== 'proxy') restore?.();
    restore = null;
  });
}

/**
 * Run the `cachet` command line and return the process exit code.
 *
 * @example
 * process.exitCode = await main(['simulate', 'coding-agent', '--json']);
 */
export async function main(argv: string[], output: CliOutput = processOutput): Promise<number> {
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    await createProgram(output).parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
        ? 0
        : EXIT_FAILURE;
    }
    if (error instanceof WorkloadError || error instanceof ServeConfigError || error instanceof ModelsFileError) {
      output.err(`error: ${error.message}\n`);
      return EXIT_BAD_WORKLOAD;
    }
    const missing = missingDependencyOf(error);
    if (missing) {
      output.err(`error: ${missing.message}\n`);
      return EXIT_BAD_WORKLOAD;
    }
    output.err(`error: ${error instanceof CachetError || error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.CACHET_DEBUG && error instanceof Error && error.stack) output.err(`${error.stack}\n`);
    return EXIT_FAILURE;
  } finally {
    process.exitCode = previous;
  }
}

function isDirectRun(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

// `tsx src/cli/main.ts demo` (npm run demo / npm run cachet) runs the CLI; importing does nothing.
if (isDirectRun()) process.exitCode = await main(process.argv.slice(2));
