import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import type Database from 'better-sqlite3';
import { requireOptional } from '../model/optional-dependency.js';
import { emptyUsage } from '../model/usage.js';
import type { HarnessImporter, LogRecord, SkipTally } from './log-record.js';
import { providerOfName } from './provider-of.js';
import { count, isObject, type JsonObject, stringOr, timeOf } from './read-json-lines.js';

/** Largest opencode message file read [4 MiB]: message files hold metadata only (content is in `part/`). */
const MAX_MESSAGE_FILE_BYTES = 4 * 1024 * 1024;

/** opencode's database file name under its data directory. */
const DATABASE_FILE = 'opencode.db';

/**
 * opencode keeps its sessions in one SQLite database, `$XDG_DATA_HOME/opencode/opencode.db`
 * (`~/.local/share/opencode/opencode.db`): table `message (id, session_id, time_created,
 * time_updated, data)` where `data` is the message as JSON without its `id` and `sessionID`.
 * Earlier versions wrote the same message JSON to files under `storage/`:
 * `message/<sessionID>/<messageID>.json`, one small file per message (opencode moves them into
 * the database when it first starts; the default location is the database when it exists, else
 * the files). An assistant message has `modelID`, `providerID`, `time { created, completed }`,
 * `cost` and `tokens { input, output, reasoning, cache { read, write } }` (input excludes the
 * cache). Message ids sort in creation order, so a session's messages are read in id order.
 */
export const opencodeImporter: HarnessImporter = {
  harness: 'opencode',
  defaultLocation: (env, home) => {
    const data = join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'opencode');
    return existsSync(join(data, DATABASE_FILE)) ? join(data, DATABASE_FILE) : join(data, 'storage');
  },
  isLogFile: (path) => basename(path) === DATABASE_FILE || (path.endsWith('.json') && path.split(sep).includes('message')),
  read: (file, skipped) => (file.endsWith('.db') ? readOpencodeDatabase(file, skipped) : readOpencodeMessage(file, skipped)),
  peersFor: (files) => (files.some((file) => file.endsWith('.db')) ? ['better-sqlite3'] : []),
};

/** Rows of opencode's `message` table, by session then creation: memory bounded by one row. */
async function* readOpencodeDatabase(file: string, skipped: SkipTally): AsyncGenerator<LogRecord> {
  const SqliteDatabase = requireOptional<typeof Database>('better-sqlite3', 'better-sqlite3', 'Reading opencode.db');
  let database: Database.Database;
  let rows: IterableIterator<unknown>;
  try {
    database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    rows = database
      .prepare('SELECT id, session_id, time_created, data FROM message ORDER BY session_id, time_created, id')
      .iterate();
  } catch {
    // Not a SQLite file, or not opencode's (no message table): skipped, the import goes on.
    skipped.foreign++;
    return;
  }
  try {
    for (const row of rows as IterableIterator<{ id: unknown; session_id: unknown; time_created: unknown; data: unknown }>) {
      let data: unknown;
      try {
        data = JSON.parse(String(row.data));
      } catch {
        skipped.invalidJson++;
        continue;
      }
      if (!isObject(data)) {
        skipped.foreign++;
        continue;
      }
      const time = isObject(data.time) ? data.time : { created: row.time_created };
      yield* recordsOfMessage({ ...data, id: row.id, sessionID: row.session_id, time }, String(row.session_id), skipped);
    }
  } finally {
    database.close();
  }
}

async function* readOpencodeMessage(file: string, skipped: SkipTally): AsyncGenerator<LogRecord> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null || text.length > MAX_MESSAGE_FILE_BYTES) {
    skipped.tooLong++;
    return;
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    skipped.invalidJson++;
    return;
  }
  yield* recordsOfMessage(message, basename(dirname(file)), skipped);
}

/** The records of one opencode message (a file's content, or a database row's `data` with its ids). */
function* recordsOfMessage(message: unknown, fallbackSessionId: string, skipped: SkipTally): Generator<LogRecord> {
  if (!isObject(message) || typeof message.role !== 'string' || !isObject(message.time)) {
    skipped.foreign++;
    return;
  }
  const sessionId = stringOr(message.sessionID, fallbackSessionId);
  const conversation = `opencode:${sessionId}`;
  const at = timeOf(message.time.created);
  if (at === null) {
    skipped.foreign++;
    return;
  }
  // Every message file names its session: the run stage keeps the first and drops repeats.
  yield { kind: 'session', conversation, at, harnessSessionId: sessionId, sidechain: false, project: projectOf(message) };
  if (message.summary === true) yield { kind: 'compaction', conversation, at };
  if (message.role !== 'assistant' || !isObject(message.tokens)) return;
  yield {
    kind: 'request',
    conversation,
    at,
    model: stringOr(message.modelID, ''),
    provider: providerOfName(message.providerID),
    usage: opencodeUsage(message.tokens),
    writeTtlLogged: !isObject(message.tokens.cache) || count(message.tokens.cache.write) === 0,
    turnKey: stringOr(message.parentID, String(at)),
    loggedCostUsd: typeof message.cost === 'number' && Number.isFinite(message.cost) ? message.cost : null,
    durationMs: durationOf(at, message.time.completed),
  };
}

/** `time.completed − time.created` of an assistant message (opencode sets `completed` when its reply ends); null while unset or out of order. */
function durationOf(createdAt: number, completed: unknown): number | null {
  const completedAt = timeOf(completed);
  return completedAt === null || completedAt < createdAt ? null : completedAt - createdAt;
}

function opencodeUsage(tokens: JsonObject) {
  const usage = emptyUsage();
  usage.uncachedInputTokens = count(tokens.input);
  usage.outputTokens = count(tokens.output);
  usage.reasoningTokens = count(tokens.reasoning);
  if (isObject(tokens.cache)) {
    usage.cacheReadTokens = count(tokens.cache.read);
    usage.cacheWrite5mTokens = count(tokens.cache.write);
  }
  return usage;
}

function projectOf(message: JsonObject): string | null {
  return isObject(message.path) && typeof message.path.cwd === 'string' ? message.path.cwd : null;
}
