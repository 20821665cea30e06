import { readFile } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { emptyUsage } from '../model/usage.js';
import type { HarnessImporter, LogRecord, SkipTally } from './log-record.js';
import { providerOfName } from './provider-of.js';
import { count, isObject, type JsonObject, stringOr, timeOf } from './read-json-lines.js';

/** Largest opencode message file read [4 MiB]: message files hold metadata only (content is in `part/`). */
const MAX_MESSAGE_FILE_BYTES = 4 * 1024 * 1024;

/**
 * opencode: JSON files under `$XDG_DATA_HOME/opencode/storage` (`~/.local/share/opencode/storage`):
 * `message/<sessionID>/<messageID>.json`, one small file per message. An assistant message has
 * `modelID`, `providerID`, `time { created, completed }`, `cost` and
 * `tokens { input, output, reasoning, cache { read, write } }` (input excludes the cache).
 * Message ids sort in creation order, so a session's files are read in name order.
 */
export const opencodeImporter: HarnessImporter = {
  harness: 'opencode',
  defaultLocation: (env, home) => join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'opencode', 'storage'),
  isLogFile: (path) => path.endsWith('.json') && path.split(sep).includes('message'),
  read: readOpencodeMessage,
};

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
  if (!isObject(message) || typeof message.role !== 'string' || !isObject(message.time)) {
    skipped.foreign++;
    return;
  }
  const sessionId = stringOr(message.sessionID, basename(dirname(file)));
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
  };
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
