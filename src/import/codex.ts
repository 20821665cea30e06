import { basename, join } from 'node:path';
import { emptyUsage } from '../model/usage.js';
import type { HarnessImporter, LogRecord, SkipTally } from './log-record.js';
import { providerOfName } from './provider-of.js';
import { count, isObject, type JsonObject, readJsonLines, stringOr, timeOf } from './read-json-lines.js';

/**
 * Codex CLI: one rollout file per session, `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
 * (`$CODEX_HOME` moves `~/.codex`). Every line is `{ timestamp, type, payload }`: `session_meta`
 * first, `turn_context` per turn (with the model), `response_item` for the conversation, and
 * `event_msg` whose `token_count` payload has `info.last_token_usage` (the last request) and
 * `info.total_token_usage` (running totals). OpenAI counts cached tokens inside `input_tokens`.
 * A `token_count` repeating the previous totals is the same request reported again: counted once.
 */
export const codexImporter: HarnessImporter = {
  harness: 'codex',
  defaultLocation: (env, home) => join(env.CODEX_HOME ?? join(home, '.codex'), 'sessions'),
  isLogFile: (path) => /^rollout-.*\.jsonl$/.test(basename(path)),
  read: readCodexLog,
};

async function* readCodexLog(file: string, skipped: SkipTally): AsyncGenerator<LogRecord> {
  let conversation: string | null = null;
  let model = '';
  let provider = providerOfName('openai');
  let turn = 0;
  let lastTotals = '';
  for await (const { value } of readJsonLines(file, skipped)) {
    const at = timeOf(value.timestamp);
    const payload = value.payload;
    if (at === null || typeof value.type !== 'string' || !isObject(payload)) {
      skipped.foreign++;
      continue;
    }
    if (value.type === 'session_meta') {
      if (conversation !== null) continue;
      const id = stringOr(payload.id, basename(file, '.jsonl'));
      conversation = `codex:${id}`;
      if (typeof payload.model_provider === 'string') provider = providerOfName(payload.model_provider);
      yield {
        kind: 'session',
        conversation,
        at,
        harnessSessionId: id,
        sidechain: false,
        project: typeof payload.cwd === 'string' ? payload.cwd : null,
      };
      continue;
    }
    if (conversation === null) {
      // A rollout always opens with session_meta; lines before it belong to nothing we can name.
      skipped.foreign++;
      continue;
    }
    if (value.type === 'turn_context') {
      turn++;
      model = stringOr(payload.model, model);
    } else if (value.type === 'compacted') {
      yield { kind: 'compaction', conversation, at };
    } else if (value.type === 'event_msg' && payload.type === 'token_count') {
      const info = payload.info;
      // `info` is null before the first reply (rate-limit updates only).
      if (!isObject(info) || !isObject(info.last_token_usage)) continue;
      const totals = JSON.stringify(info.total_token_usage ?? null);
      if (totals === lastTotals) continue;
      lastTotals = totals;
      yield {
        kind: 'request',
        conversation,
        at,
        model,
        provider,
        usage: openAIUsage(info.last_token_usage),
        writeTtlLogged: true,
        turnKey: String(turn),
        loggedCostUsd: null,
        // A rollout line has only its `timestamp`: no request duration.
        durationMs: null,
      };
    }
  }
}

/** OpenAI's counts: cached tokens are inside `input_tokens`; reasoning inside `output_tokens` on the wire but logged beside it by Codex. */
function openAIUsage(raw: JsonObject) {
  const usage = emptyUsage();
  const input = count(raw.input_tokens);
  const cached = Math.min(count(raw.cached_input_tokens), input);
  usage.cacheReadTokens = cached;
  usage.uncachedInputTokens = input - cached;
  usage.outputTokens = count(raw.output_tokens);
  usage.reasoningTokens = count(raw.reasoning_output_tokens);
  return usage;
}
