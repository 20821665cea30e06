import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import type { Command } from 'commander';
import { importerOf, isHarnessId } from '../../import/harnesses.js';
import { HARNESS_IDS } from '../../import/log-record.js';
import { type ImportSummary, importLogs, importPeers, storeSink } from '../../import/run-import.js';
import { CachetError } from '../../model/errors.js';
import { openTraceStore } from '../../trace/open-trace-store.js';
import { DEFAULT_TRACE_DB } from '../../trace/sqlite-trace-store.js';
import { contentHash, STORE_CONTENT_MODES, type StoreContent } from '../../trace/store-content.js';
import { oneOf } from '../cli-options.js';
import { formatPercent, formatUsd } from '../format-table.js';
import { missingPeers, traceStorePeer } from '../load-with-peers.js';

export interface ImportCommandOptions {
  db: string;
  json?: boolean;
  storeContent: StoreContent;
}

export interface CommandOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Exit code for an unknown harness or an unreadable path. */
export const IMPORT_BAD_INPUT_EXIT_CODE = 2;

/**
 * `cachet import <harness> [path]`: read a harness's local session logs into the trace store.
 *
 * @example
 * cachet import claude-code                       # ~/.claude/projects into .cachet/traces.db
 * cachet import codex ~/.codex/sessions --json
 */
export function registerImportCommand(program: Command): Command {
  return program
    .command('import')
    .description(`read a harness's session logs (${HARNESS_IDS.join(', ')}) into the trace store`)
    .argument('<harness>', HARNESS_IDS.join(', '))
    .argument('[path]', "log file or directory [the harness's default location]")
    .option(
      '--db <path|url>',
      'trace store: SQLite file or postgres:// URL (env CACHET_DB)',
      process.env.CACHET_DB ?? DEFAULT_TRACE_DB,
    )
    .option('--json', 'print the summary as one JSON object')
    .option(
      '--store-content <mode>',
      'project paths: full (as is), hashes (hashed), none (left out); logs never give prompt text to the store',
      oneOf(STORE_CONTENT_MODES),
      'hashes',
    )
    .action(async (harness: string, path: string | undefined, options: ImportCommandOptions) => {
      process.exitCode = await runImport(harness, path, options);
    });
}

/** Import and print; returns the exit code (0 done, 2 bad input, 1 other failure). */
export async function runImport(
  harness: string,
  path: string | undefined,
  options: ImportCommandOptions,
  output: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) },
): Promise<number> {
  if (!isHarnessId(harness)) {
    output.err(`cachet import: unknown harness ${JSON.stringify(harness)}: expected one of ${HARNESS_IDS.join(', ')}`);
    return IMPORT_BAD_INPUT_EXIT_CODE;
  }
  const location = path ?? importerOf(harness).defaultLocation(process.env, homedir());
  // Checked before the store is opened: a mistyped path must not leave an empty store behind.
  if (!existsSync(location)) {
    output.err(
      `cachet import: ${location}: no such file or directory${path ? '' : ` (the default location of ${harness} logs; pass a path)`}`,
    );
    return IMPORT_BAD_INPUT_EXIT_CODE;
  }
  let summary: ImportSummary;
  try {
    // Every package the run needs, named at once (not the store's driver on one run, opencode.db's on the next).
    const missing = missingPeers(
      [traceStorePeer(options.db), ...(await importPeers(harness, location))],
      `reading ${harness} logs into the trace store`,
    );
    if (missing) throw missing;
    const store = await openTraceStore(options.db);
    try {
      summary = await importLogs({
        harness,
        path: location,
        projectLabel: projectLabelFor(options.storeContent),
        sink: storeSink(store),
      });
    } finally {
      await store.close();
    }
  } catch (error) {
    output.err(`cachet import: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof CachetError ? IMPORT_BAD_INPUT_EXIT_CODE : 1;
  }
  if (options.json) output.out(JSON.stringify(summary));
  else
    for (const line of [
      ...formatImportSummary(summary),
      `  traces: ${options.db} (see them with \`cachet serve --db ${options.db}\`)`,
    ])
      output.out(line);
  return 0;
}

/**
 * `cachet analyze --from <harness> <path>`: the import's figures and causes, read straight
 * from the logs without a trace store.
 */
export async function runLogAnalysis(harness: string, path: string, json: boolean, output: CommandOutput): Promise<number> {
  if (!isHarnessId(harness)) {
    output.err(`cachet analyze: --from: unknown harness ${JSON.stringify(harness)}: expected one of ${HARNESS_IDS.join(', ')}`);
    return IMPORT_BAD_INPUT_EXIT_CODE;
  }
  let summary: ImportSummary;
  try {
    summary = await importLogs({ harness, path });
  } catch (error) {
    output.err(`cachet analyze: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof CachetError ? IMPORT_BAD_INPUT_EXIT_CODE : 1;
  }
  if (json) output.out(JSON.stringify(summary));
  else for (const line of formatImportSummary(summary)) output.out(line);
  return 0;
}

function projectLabelFor(mode: StoreContent): (project: string) => string | null {
  if (mode === 'full') return (project) => project;
  if (mode === 'hashes') return (project) => contentHash(project);
  return () => null;
}

export function formatImportSummary(summary: ImportSummary): string[] {
  const lines = [
    `${summary.harness}: ${summary.requests.toLocaleString('en-US')} requests in ${summary.sessions} sessions from ${summary.files} files (${summary.path})`,
    `  read share ${formatPercent(summary.readShare)}: ${summary.cacheReadTokens.toLocaleString('en-US')} read, ${summary.cacheWriteTokens.toLocaleString('en-US')} written, ${summary.uncachedInputTokens.toLocaleString('en-US')} uncached, ${summary.outputTokens.toLocaleString('en-US')} output tokens`,
    `  cost ${formatUsd(summary.costUsd)} (no cache ${formatUsd(summary.uncachedCostUsd)})${summary.unpricedRequests > 0 ? `; ${summary.unpricedRequests} requests unpriced (model unknown to Cachet, no cost in the log)` : ''}`,
  ];
  for (const cause of summary.causes) {
    lines.push(`  ${cause.cause} ×${cause.count}: ${cause.missedTokens.toLocaleString('en-US')} cached tokens not read`);
  }
  if (summary.alreadyImported > 0) lines.push(`  ${summary.alreadyImported} sessions already in the store, left as they were`);
  if (summary.skippedLines > 0) {
    const { invalidJson, foreign, tooLong } = summary.skipped;
    lines.push(
      `  skipped ${summary.skippedLines} lines: ${invalidJson} not JSON (truncated), ${foreign} not ${summary.harness} records, ${tooLong} too long`,
    );
  }
  return lines;
}
