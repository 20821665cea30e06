import type { Usage } from '../model/usage.js';
import type { ProviderId } from '../providers/adapter.js';

/** The harnesses whose local logs `cachet import` reads. */
export const HARNESS_IDS = ['claude-code', 'codex', 'opencode', 'pi'] as const;
export type HarnessId = (typeof HARNESS_IDS)[number];

/** One model request as a harness logged it: usage once per request, never once per content block. */
export interface LoggedRequest {
  kind: 'request';
  /** The conversation whose cache this request reads: a session, or a subagent's sidechain within it. */
  conversation: string;
  /** When the log says the request happened, ms since the epoch. */
  at: number;
  model: string;
  /** The wire API, when the log names one Cachet prices; null leaves the cost unknown. */
  provider: ProviderId | null;
  usage: Usage;
  /** Whether the log splits cache writes by lifetime; when not, every write is counted as 5-minute. */
  writeTtlLogged: boolean;
  /** Requests with the same key belong to one user turn (a prompt and the tool loop it started). */
  turnKey: string;
  /** What the harness itself logged as the cost, when it did (pi, opencode). */
  loggedCostUsd: number | null;
  /** How long the request took, when the log times it (opencode's `time.completed`); null when unknown. */
  durationMs: number | null;
}

/** An entry of the conversation, for history edits: harnesses that keep a tree (pi) name each entry's parent. */
export interface LoggedEntry {
  kind: 'entry';
  conversation: string;
  id: string;
  /** The entry this one follows; a parent other than the previous entry means the history was branched or edited. */
  parent: string | null;
}

/** The harness replaced the conversation's history with a summary: the next request cannot read the old prefix. */
export interface LoggedCompaction {
  kind: 'compaction';
  conversation: string;
  at: number;
}

/** A conversation seen for the first time, with what the log says about it. */
export interface LoggedSession {
  kind: 'session';
  conversation: string;
  at: number;
  /** The harness's own session id (a sidechain shares its parent's). */
  harnessSessionId: string;
  /** True for a subagent's requests kept in the parent session's file (Claude Code `isSidechain`). */
  sidechain: boolean;
  project: string | null;
}

export type LogRecord = LoggedRequest | LoggedEntry | LoggedCompaction | LoggedSession;

/** Lines (or files) read but not imported, by reason. */
export interface SkipTally {
  /** Not JSON: usually a line cut short while the harness was writing it. */
  invalidJson: number;
  /** JSON, but not a shape this harness writes (another tool's line, an unknown version). */
  foreign: number;
  /** Lines longer than the reader accepts. */
  tooLong: number;
}

/** One importer per harness, each in `src/import/<harness>.ts` with this shape. */
export interface HarnessImporter {
  readonly harness: HarnessId;
  /**
   * Where the harness writes its logs by default, resolved against the home directory and environment
   * (`process.env`; typed structurally so that the declarations need no @types/node).
   */
  defaultLocation(env: Readonly<Record<string, string | undefined>>, home: string): string;
  /** Whether a file found under the location is one of the harness's logs. */
  isLogFile(path: string): boolean;
  /** The records of one log file, read line by line (memory bounded by the longest line). */
  read(file: string, skipped: SkipTally): AsyncGenerator<LogRecord>;
  /**
   * The optional packages reading these log files needs (opencode.db: better-sqlite3), so that
   * `cachet import` names them with the trace store's driver before reading; none when absent.
   */
  peersFor?(files: readonly string[]): string[];
}

export function emptySkipTally(): SkipTally {
  return { invalidJson: 0, foreign: 0, tooLong: 0 };
}

export function skippedTotal(tally: SkipTally): number {
  return tally.invalidJson + tally.foreign + tally.tooLong;
}
