import { createAnthropicCacheModel } from '../../cache/models/anthropic-cache-model.js';
import type { CacheVerdict } from '../../cache/models/cache-verdict.js';
import { anthropicReply } from './anthropic-replies.js';
import { CODING_AGENT_TURNS, type ScriptedUserTurn, scriptedReplies, scriptedRequestTimes } from './coding-agent-script.js';
import { type ScriptedServer, startScriptedServer } from './scripted-server.js';

export interface CodingAgentServer extends ScriptedServer {
  /** Cachet's Anthropic cache model's verdict on each captured body, in request order. */
  verdicts: CacheVerdict[];
}

/**
 * A local Messages API that plays the scripted coding agent's replies and reports, as each
 * reply's usage, what Cachet's Anthropic cache model says that body would have read and
 * written (request times from the script's clock).
 */
export async function startCodingAgentServer(
  turns: readonly ScriptedUserTurn[] = CODING_AGENT_TURNS,
): Promise<CodingAgentServer> {
  const replies = scriptedReplies(turns);
  const times = scriptedRequestTimes(turns);
  const model = createAnthropicCacheModel();
  const verdicts: CacheVerdict[] = [];
  const server = await startScriptedServer((body, index) => {
    const reply = replies[index];
    if (!reply) throw new Error(`the script has ${replies.length} replies; request #${index + 1} was not expected`);
    const { stream, ...rest } = body;
    const verdict = model.judge(rest, { at: times[index]! });
    verdicts.push(verdict);
    return anthropicReply(
      reply,
      stream === true,
      {
        input_tokens: verdict.uncachedTokens,
        output_tokens: 40,
        cache_read_input_tokens: verdict.cacheReadTokens,
        cache_creation_input_tokens: verdict.cacheWriteTokens,
      },
      `msg_${index + 1}`,
    );
  });
  return { ...server, verdicts };
}

export interface RunFigures {
  requests: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  uncachedTokens: number;
  /** Reads over every input token. */
  readShare: number;
  /** Most `cache_control` markers on any one request body. */
  maxMarkers: number;
  /** Requests the API would refuse (more than four markers, TTL order). */
  rejected: number;
}

/** Totals of a judged run, with the most markers any request carried. */
export function runFigures(verdicts: readonly CacheVerdict[], bodies: readonly unknown[]): RunFigures {
  const sum = (pick: (verdict: CacheVerdict) => number) => verdicts.reduce((total, verdict) => total + pick(verdict), 0);
  const inputTokens = sum((verdict) => verdict.inputTokens);
  const cacheReadTokens = sum((verdict) => verdict.cacheReadTokens);
  return {
    requests: verdicts.length,
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens: sum((verdict) => verdict.cacheWriteTokens),
    uncachedTokens: sum((verdict) => verdict.uncachedTokens),
    readShare: inputTokens === 0 ? 0 : cacheReadTokens / inputTokens,
    maxMarkers: Math.max(0, ...bodies.map(countMarkers)),
    rejected: verdicts.filter((verdict) => verdict.rejected !== null).length,
  };
}

/** `cache_control` markers anywhere in a body. */
export function countMarkers(body: unknown): number {
  if (Array.isArray(body)) return body.reduce((total: number, item) => total + countMarkers(item), 0);
  if (typeof body !== 'object' || body === null) return 0;
  return Object.entries(body).reduce(
    (total, [key, value]) => total + (key === 'cache_control' && value ? 1 : countMarkers(value)),
    0,
  );
}
