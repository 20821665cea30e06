import { join } from 'node:path';
import { emptyUsage } from '../model/usage.js';
import type { HarnessImporter, LogRecord, SkipTally } from './log-record.js';
import { providerOfName } from './provider-of.js';
import { count, isObject, type JsonObject, readJsonLines, stringOr, timeOf } from './read-json-lines.js';

/**
 * pi (pi-coding-agent): one JSONL file per session under
 * `~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl` (`$PI_CODING_AGENT_DIR` moves `~/.pi/agent`).
 * The first line is the `session` header; `message` lines carry pi-ai messages, assistant ones
 * with `provider`, `model` and `usage { input, output, cacheRead, cacheWrite, cost }` (input
 * excludes cache reads and writes). Entries form a tree by `id`/`parentId` (version 2 on): an
 * entry whose parent is not the previous entry is a branch, so the history was edited.
 */
export const piImporter: HarnessImporter = {
  harness: 'pi',
  defaultLocation: (env, home) => join(env.PI_CODING_AGENT_DIR ?? join(home, '.pi', 'agent'), 'sessions'),
  isLogFile: (path) => path.endsWith('.jsonl'),
  read: readPiLog,
};

async function* readPiLog(file: string, skipped: SkipTally): AsyncGenerator<LogRecord> {
  let conversation: string | null = null;
  let turnKey = 'start';
  for await (const { value } of readJsonLines(file, skipped)) {
    const at = timeOf(value.timestamp);
    if (at === null || typeof value.type !== 'string') {
      skipped.foreign++;
      continue;
    }
    if (value.type === 'session') {
      if (conversation !== null) continue;
      const id = stringOr(value.id, file);
      conversation = `pi:${id}`;
      yield {
        kind: 'session',
        conversation,
        at,
        harnessSessionId: id,
        sidechain: false,
        project: typeof value.cwd === 'string' ? value.cwd : null,
      };
      continue;
    }
    if (conversation === null) {
      skipped.foreign++;
      continue;
    }
    if (typeof value.id === 'string') {
      yield { kind: 'entry', conversation, id: value.id, parent: typeof value.parentId === 'string' ? value.parentId : null };
    }
    if (value.type === 'compaction') {
      yield { kind: 'compaction', conversation, at };
      continue;
    }
    if (value.type !== 'message' || !isObject(value.message)) continue;
    const message = value.message;
    if (message.role === 'user') turnKey = stringOr(value.id, String(at));
    if (message.role !== 'assistant' || !isObject(message.usage)) continue;
    yield {
      kind: 'request',
      conversation,
      at: timeOf(message.timestamp) ?? at,
      model: stringOr(message.model, ''),
      provider: providerOfName(message.api) ?? providerOfName(message.provider),
      usage: piUsage(message.usage),
      writeTtlLogged: count(message.usage.cacheWrite) === 0,
      turnKey,
      loggedCostUsd: loggedCost(message.usage),
      // pi-ai's AssistantMessage has one `timestamp`: no request duration.
      durationMs: null,
    };
  }
}

function piUsage(raw: JsonObject) {
  const usage = emptyUsage();
  usage.uncachedInputTokens = count(raw.input);
  usage.cacheReadTokens = count(raw.cacheRead);
  usage.cacheWrite5mTokens = count(raw.cacheWrite);
  usage.outputTokens = count(raw.output);
  return usage;
}

function loggedCost(raw: JsonObject): number | null {
  const cost = raw.cost;
  return isObject(cost) && typeof cost.total === 'number' && Number.isFinite(cost.total) ? cost.total : null;
}
