import { homedir } from 'node:os';
import type { CacheBreakCause, CachetEvent } from '../events/catalog.js';
import { cacheWriteTokens } from '../model/usage.js';
import type { TraceStore } from '../trace/trace-store.js';
import { findLogFiles } from './find-log-files.js';
import { importerOf } from './harnesses.js';
import { ConversationJudge } from './judge-conversation.js';
import {
  emptySkipTally,
  type HarnessId,
  type LoggedRequest,
  type LoggedSession,
  type SkipTally,
  skippedTotal,
} from './log-record.js';

/** Where imported events go: a trace store, or nowhere (`cachet analyze --from` only reports). */
export interface ImportSink {
  /** Whether the store already holds the session (an import run twice adds nothing twice). */
  has(sessionId: string): Promise<boolean>;
  write(events: readonly CachetEvent[]): Promise<void>;
}

export interface ImportOptions {
  harness: HarnessId;
  /** A log file or a directory of them [the harness's default location]. */
  path?: string;
  sink?: ImportSink;
  /** Whether the project directory of each session may be stored: `full` as is, `hashes` hashed, `none` not at all. */
  projectLabel?: (project: string) => string | null;
  env?: Readonly<Record<string, string | undefined>>;
  home?: string;
  /** Events written per transaction [500]. */
  batchSize?: number;
}

export interface ImportedBreak {
  sessionId: string;
  turn: number;
  step: number;
  at: number;
  cause: CacheBreakCause;
  path: string | null;
  missedTokens: number;
}

/** What an import read, as `cachet import --json` prints it. */
export interface ImportSummary {
  harness: HarnessId;
  path: string;
  files: number;
  sessions: number;
  /** Sessions left alone because the store already had them. */
  alreadyImported: number;
  requests: number;
  /** Every input token: uncached + cache read + cache write. */
  inputTokens: number;
  uncachedInputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  outputTokens: number;
  /** Cache read ÷ all input. */
  readShare: number;
  costUsd: number;
  uncachedCostUsd: number;
  /** Requests whose model Cachet has no price for and whose log gave no cost: counted at $0. */
  unpricedRequests: number;
  /** Requests whose log did not split cache writes by lifetime (counted as 5-minute writes). */
  writeTtlUnknownRequests: number;
  skippedLines: number;
  skipped: SkipTally;
  causes: Array<{ cause: CacheBreakCause; count: number; missedTokens: number }>;
  /** The first miss read, for `cachet check`. */
  firstBreak: ImportedBreak | null;
  firstAt: number | null;
  lastAt: number | null;
}

/** A trace store as an import sink. */
export function storeSink(store: TraceStore): ImportSink {
  return {
    has: async (sessionId) => (await store.events({ sessionId, limit: 1 })).length > 0,
    write: (events) => store.appendBatch(events),
  };
}

interface Conversation {
  judge: ConversationJudge;
  session: LoggedSession;
  started: boolean;
  /** False when the store already had it: its records are read and dropped. */
  importing: boolean;
}

/**
 * The optional packages reading the harness's logs at `path` needs (see `HarnessImporter.peersFor`):
 * the directory is walked only for a harness that has such logs.
 *
 * @example
 * await importPeers('opencode', '~/.local/share/opencode'); // ['better-sqlite3'] when opencode.db is there
 */
export async function importPeers(harness: HarnessId, path: string): Promise<string[]> {
  const importer = importerOf(harness);
  if (!importer.peersFor) return [];
  return importer.peersFor(await findLogFiles(path, importer.isLogFile));
}

/**
 * Read a harness's logs file by file, line by line, into events: memory is bounded by the
 * longest line, the batch and one small state per conversation, never by the size of the logs.
 *
 * @example
 * const summary = await importLogs({ harness: 'claude-code', sink: storeSink(await openTraceStore()) });
 */
export async function importLogs(options: ImportOptions): Promise<ImportSummary> {
  const importer = importerOf(options.harness);
  const path = options.path ?? importer.defaultLocation(options.env ?? process.env, options.home ?? homedir());
  const files = await findLogFiles(path, importer.isLogFile);
  const summary = emptySummary(options.harness, path, files.length);
  const causes = new Map<CacheBreakCause, { cause: CacheBreakCause; count: number; missedTokens: number }>();
  const conversations = new Map<string, Conversation>();
  const batchSize = options.batchSize ?? 500;
  let batch: CachetEvent[] = [];
  const flush = async () => {
    if (batch.length > 0 && options.sink) await options.sink.write(batch);
    batch = [];
  };
  for (const file of files) {
    for await (const record of importer.read(file, summary.skipped)) {
      if (record.kind === 'session') {
        if (!conversations.has(record.conversation)) {
          const importing = !(await options.sink?.has(record.conversation));
          if (!importing) summary.alreadyImported++;
          conversations.set(record.conversation, {
            judge: new ConversationJudge(record, options.harness),
            session: record,
            started: false,
            importing,
          });
        }
        continue;
      }
      const conversation = conversations.get(record.conversation);
      if (!conversation?.importing) continue;
      if (record.kind === 'entry') conversation.judge.entry(record.id, record.parent);
      else if (record.kind === 'compaction') conversation.judge.compaction();
      else {
        if (!conversation.started) {
          conversation.started = true;
          summary.sessions++;
          batch.push(conversation.judge.started(record.model, record.provider, sessionLabels(conversation.session, options)));
        }
        const { events, judged } = conversation.judge.request(record);
        batch.push(...events);
        count(summary, record, judged.costUsd, judged.uncachedCostUsd, judged.priced);
        if (judged.cacheBreak) {
          const entry = causes.get(judged.cacheBreak.cause) ?? { cause: judged.cacheBreak.cause, count: 0, missedTokens: 0 };
          entry.count++;
          entry.missedTokens += judged.cacheBreak.missedTokens;
          causes.set(entry.cause, entry);
          summary.firstBreak ??= { sessionId: record.conversation, at: record.at, ...pick(judged.cacheBreak) };
        }
      }
      if (batch.length >= batchSize) await flush();
    }
    for (const conversation of conversations.values()) conversation.judge.release();
  }
  await flush();
  summary.skippedLines = skippedTotal(summary.skipped);
  summary.readShare = summary.inputTokens === 0 ? 0 : summary.cacheReadTokens / summary.inputTokens;
  summary.causes = [...causes.values()].sort((left, right) => right.missedTokens - left.missedTokens);
  return summary;
}

function pick(cacheBreak: { turn: number; step: number; cause: CacheBreakCause; path: string | null; missedTokens: number }) {
  const { turn, step, cause, path, missedTokens } = cacheBreak;
  return { turn, step, cause, path, missedTokens };
}

function sessionLabels(session: LoggedSession, options: ImportOptions): Record<string, string> {
  const labels: Record<string, string> = { source: options.harness };
  if (session.sidechain) labels.parentSession = `${options.harness}:${session.harnessSessionId}`;
  const project = session.project === null ? null : (options.projectLabel?.(session.project) ?? null);
  if (project) labels.project = project;
  return labels;
}

function count(summary: ImportSummary, request: LoggedRequest, costUsd: number, uncachedCostUsd: number, priced: boolean): void {
  const { usage } = request;
  const written = cacheWriteTokens(usage);
  summary.requests++;
  summary.uncachedInputTokens += usage.uncachedInputTokens;
  summary.cacheReadTokens += usage.cacheReadTokens;
  summary.cacheWriteTokens += written;
  summary.cacheWrite1hTokens += usage.cacheWrite1hTokens;
  summary.inputTokens += usage.uncachedInputTokens + usage.cacheReadTokens + written;
  summary.outputTokens += usage.outputTokens;
  summary.costUsd += costUsd;
  summary.uncachedCostUsd += uncachedCostUsd;
  if (!priced) summary.unpricedRequests++;
  if (!request.writeTtlLogged) summary.writeTtlUnknownRequests++;
  summary.firstAt = summary.firstAt === null ? request.at : Math.min(summary.firstAt, request.at);
  summary.lastAt = summary.lastAt === null ? request.at : Math.max(summary.lastAt, request.at);
}

function emptySummary(harness: HarnessId, path: string, files: number): ImportSummary {
  return {
    harness,
    path,
    files,
    sessions: 0,
    alreadyImported: 0,
    requests: 0,
    inputTokens: 0,
    uncachedInputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 0,
    readShare: 0,
    costUsd: 0,
    uncachedCostUsd: 0,
    unpricedRequests: 0,
    writeTtlUnknownRequests: 0,
    skippedLines: 0,
    skipped: emptySkipTally(),
    causes: [],
    firstBreak: null,
    firstAt: null,
    lastAt: null,
  };
}
