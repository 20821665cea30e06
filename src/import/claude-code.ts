import { join } from 'node:path';
import { emptyUsage, type Usage } from '../model/usage.js';
import type { HarnessImporter, LoggedRequest, LogRecord, SkipTally } from './log-record.js';
import { count, isObject, type JsonObject, readJsonLines, stringOr, timeOf } from './read-json-lines.js';

/**
 * Claude Code: one JSONL file per session under `~/.claude/projects/<project>/<session>.jsonl`
 * (subagents also in `<session>/subagents/agent-<id>.jsonl`). Lines are `user`, `assistant`,
 * `system`, `summary`, `file-history-snapshot`, …; an assistant message is written as one line
 * per content block, each repeating `message.id`, `requestId` and `usage`: counted once here.
 * Subagent (sidechain) lines in the same file are their own conversation, with their own cache.
 */
export const claudeCodeImporter: HarnessImporter = {
  harness: 'claude-code',
  defaultLocation: (env, home) => join(env.CLAUDE_CONFIG_DIR ?? join(home, '.claude'), 'projects'),
  isLogFile: (path) => path.endsWith('.jsonl'),
  read: readClaudeCodeLog,
};

interface Chain {
  conversation: string;
  /** The request being read: its lines repeat one message id. */
  pending: LoggedRequest | null;
  pendingId: string | null;
  /** Message ids already counted (a bounded window: repeats are adjacent or close). */
  seen: string[];
  turnKey: string;
}

const SEEN_WINDOW = 64;

async function* readClaudeCodeLog(file: string, skipped: SkipTally): AsyncGenerator<LogRecord> {
  const chains = new Map<string, Chain>();
  for await (const { value } of readJsonLines(file, skipped)) {
    const type = value.type;
    if (type === 'summary' || type === 'file-history-snapshot' || type === 'queue-operation') continue;
    const sessionId = value.sessionId;
    if (typeof sessionId !== 'string' || typeof type !== 'string') {
      skipped.foreign++;
      continue;
    }
    const at = timeOf(value.timestamp);
    if (at === null) {
      skipped.foreign++;
      continue;
    }
    const sidechain = value.isSidechain === true;
    const agent = sidechain ? stringOr(value.agentId, 'sidechain') : null;
    const conversation = `claude-code:${sessionId}${agent ? `:agent-${agent}` : ''}`;
    let chain = chains.get(conversation);
    if (!chain) {
      chain = { conversation, pending: null, pendingId: null, seen: [], turnKey: stringOr(value.uuid, 'start') };
      chains.set(conversation, chain);
      yield {
        kind: 'session',
        conversation,
        at,
        harnessSessionId: sessionId,
        sidechain,
        project: typeof value.cwd === 'string' ? value.cwd : null,
      };
    }
    if (type === 'assistant') {
      const request = assistantRequest(value, chain, at);
      if (request === 'repeat') continue;
      const flushed = flush(chain);
      if (flushed) yield flushed;
      if (request) {
        chain.pending = request.request;
        chain.pendingId = request.id;
      }
      continue;
    }
    const flushed = flush(chain);
    if (flushed) yield flushed;
    if (type === 'user' && isPrompt(value)) chain.turnKey = stringOr(value.uuid, chain.turnKey);
    if (type === 'system' && value.subtype === 'compact_boundary') yield { kind: 'compaction', conversation, at };
  }
  for (const chain of chains.values()) {
    const flushed = flush(chain);
    if (flushed) yield flushed;
  }
}

/** The request an assistant line starts, 'repeat' for another block of one already read, null for no API call. */
function assistantRequest(line: JsonObject, chain: Chain, at: number): { request: LoggedRequest; id: string } | 'repeat' | null {
  const message = line.message;
  if (!isObject(message) || !isObject(message.usage)) return null;
  const model = stringOr(message.model, '');
  // `<synthetic>` messages are Claude Code's own (an interrupted or failed call): no request was billed.
  if (model === '' || model === '<synthetic>') return null;
  const id = stringOr(line.requestId, stringOr(message.id, ''));
  if (id !== '' && (id === chain.pendingId || chain.seen.includes(id))) {
    // Later lines of a message may carry the final output count; keep the largest.
    if (id === chain.pendingId && chain.pending) {
      const usage = usageOf(message.usage);
      chain.pending.usage.outputTokens = Math.max(chain.pending.usage.outputTokens, usage.usage.outputTokens);
    }
    return 'repeat';
  }
  const { usage, ttlLogged } = usageOf(message.usage);
  return {
    id,
    request: {
      kind: 'request',
      conversation: chain.conversation,
      at,
      model,
      provider: 'anthropic',
      usage,
      writeTtlLogged: ttlLogged,
      turnKey: chain.turnKey,
      loggedCostUsd: null,
      // Each line has one `timestamp` (written as the message's blocks arrive): no request duration.
      durationMs: null,
    },
  };
}

function flush(chain: Chain): LoggedRequest | null {
  const request = chain.pending;
  if (chain.pendingId) {
    chain.seen.push(chain.pendingId);
    if (chain.seen.length > SEEN_WINDOW) chain.seen.shift();
  }
  chain.pending = null;
  chain.pendingId = null;
  return request;
}

/** Anthropic's usage object: `input_tokens` is uncached; `cache_creation` splits writes by lifetime when logged. */
function usageOf(raw: JsonObject): { usage: Usage; ttlLogged: boolean } {
  const usage = emptyUsage();
  usage.uncachedInputTokens = count(raw.input_tokens);
  usage.cacheReadTokens = count(raw.cache_read_input_tokens);
  usage.outputTokens = count(raw.output_tokens);
  const written = count(raw.cache_creation_input_tokens);
  const split = raw.cache_creation;
  if (isObject(split) && ('ephemeral_5m_input_tokens' in split || 'ephemeral_1h_input_tokens' in split)) {
    usage.cacheWrite5mTokens = count(split.ephemeral_5m_input_tokens);
    usage.cacheWrite1hTokens = count(split.ephemeral_1h_input_tokens);
    return { usage, ttlLogged: true };
  }
  usage.cacheWrite5mTokens = written;
  return { usage, ttlLogged: written === 0 };
}

/** A user line typed by the person (a new turn), not a tool result fed back to the model. */
function isPrompt(line: JsonObject): boolean {
  if (line.isMeta === true) return false;
  const message = line.message;
  if (!isObject(message)) return false;
  const content = message.content;
  if (typeof content === 'string') return true;
  return Array.isArray(content) && !content.some((block) => isObject(block) && block.type === 'tool_result');
}
