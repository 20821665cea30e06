import { costOf } from '../../cache/cost.js';
import { findPrice } from '../../cache/pricing.js';
import type { EventBus } from '../../events/event-bus.js';
import { wouldPassBudget } from '../../model/budget.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import { KEEP_WARM_TEXT } from '../../runtime/keep-warm.js';
import type { ProxyKeepWarmOptions } from './keep-warm-options.js';
import type { KeepWarmStats } from './keep-warm-stats.js';
import { pingTokens, type WarmConversation } from './warm-conversation.js';
import type { WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The client's headers a ping needs to reach the upstream as the client: held in memory only. */
const CREDENTIAL_HEADERS = ['x-api-key', 'authorization', 'anthropic-version', 'anthropic-beta'];

export interface StageDependencies {
  options: ProxyKeepWarmOptions;
  fetchUpstream: typeof fetch;
  upstreamUrl: (path: string) => string;
  now: () => number;
  bus: EventBus | undefined;
  /** Whether a request of the conversation is in flight: the client is back, the idle period is over. */
  clientBusy?: (sessionId: string) => boolean;
}

export interface StageContext {
  dependencies: StageDependencies;
  budget: number;
  perConversation: number;
  stats: KeepWarmStats;
  endIdle(conversation: WarmConversation): void;
}

/** Send one ping within the budgets and publish it as `cache.keepalive`; a failure disables the conversation's pings. */
export async function sendPing(
  context: StageContext,
  sessionId: string,
  conversation: WarmConversation,
  body: JsonRecord,
  path: string,
  index: number,
): Promise<void> {
  if (context.dependencies.clientBusy?.(sessionId)) {
    // The client sent its next request (it reads the entry itself): no ping; that exchange plans the next pause.
    context.endIdle(conversation);
    return;
  }
  const price = findPrice('anthropic', conversation.model);
  const expectedUsd = price ? (pingTokens(conversation) * price.inputPerMTok) / 1e6 : 0;
  const passesGlobal = wouldPassBudget(context.stats.spentUsd, expectedUsd, context.budget);
  if (passesGlobal || wouldPassBudget(conversation.spentUsd, expectedUsd, context.perConversation)) {
    context.stats.stoppedByBudget += 1;
    context.endIdle(conversation);
    context.dependencies.bus?.emit('warning.raised', sessionId, context.dependencies.now(), {
      source: 'proxy.keep-warm',
      message: `keep-warm stopped: the next ping ($${expectedUsd.toFixed(4)}) would pass the ${passesGlobal ? 'global' : 'per-conversation'} budget`,
    });
    return;
  }
  const credentials = conversation.credentials;
  if (!credentials) return;
  let error: string | null = null;
  let costUsd: number | null = null;
  try {
    const response = await context.dependencies.fetchUpstream(context.dependencies.upstreamUrl(path), {
      method: 'POST',
      headers: credentials,
      body: JSON.stringify(body),
    });
    const reply: unknown = await response.json().catch(() => null);
    if (!response.ok) throw new Error(`upstream answered ${response.status}`);
    costUsd = costOf(anthropicAdapter.parseUsage(reply), 'anthropic', conversation.model).inputCostUsd;
    context.stats.pingsSent += 1;
    context.stats.spentUsd += costUsd;
    conversation.spentUsd += costUsd;
    conversation.lastPingAt = context.dependencies.now();
    // The ping read the long entry (a long-entry ping reads it and re-writes the rest): it lives another hour.
    if (conversation.longEntry) conversation.longEntry.refreshedAt = conversation.lastPingAt;
  } catch (failure) {
    // A failing ping (credentials refused, upstream down) ends this idle period's pings; the conversation is untouched.
    error = failure instanceof Error ? failure.message : String(failure);
    context.stats.pingsFailed += 1;
    conversation.disabled = true;
    context.endIdle(conversation);
  }
  context.dependencies.bus?.emit('cache.keepalive', sessionId, context.dependencies.now(), {
    provider: 'anthropic',
    model: conversation.model,
    ping: index + 1,
    prefixTokens: conversation.prefixTokens,
    costUsd,
    spentUsd: conversation.spentUsd,
    expectedSavingUsd: null,
    sent: error === null,
    error,
  });
}

/** The client's credentials and API version headers, and a JSON content type. */
export function credentialsOf(headers: Headers): Headers {
  const kept = new Headers({ 'content-type': 'application/json' });
  for (const name of CREDENTIAL_HEADERS) {
    const value = headers.get(name);
    if (value !== null) kept.set(name, value);
  }
  return kept;
}

/**
 * The pre-warm body for an Anthropic Messages body: the same prefix, `max_tokens: 0`, no
 * streaming, one short text block after the last block (after its breakpoint, so never cached).
 * Null when Anthropic refuses `max_tokens: 0` with the body's parameters (thinking, structured
 * outputs) or the body does not end with a user message.
 */
export function pingBody(route: WireRoute, body: JsonRecord): JsonRecord | null {
  if (route !== 'anthropic' || !Array.isArray(body.messages)) return null;
  if (isRecord(body.thinking) && body.thinking.type !== 'disabled') return null;
  if (isRecord(body.output_config) && body.output_config.format !== undefined) return null;
  const messages = body.messages as unknown[];
  const last = messages.at(-1);
  if (!isRecord(last) || last.role !== 'user') return null;
  const content = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  if (!Array.isArray(content)) return null;
  const { stream: _stream, ...rest } = body;
  return {
    ...rest,
    max_tokens: 0,
    messages: [...messages.slice(0, -1), { ...last, content: [...content, { type: 'text', text: KEEP_WARM_TEXT }] }],
  };
}
