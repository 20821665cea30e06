import { findPrice } from '../../cache/pricing.js';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import { KeepWarmUnsupportedError } from '../../runtime/keep-warm.js';
import { planKeepWarm } from '../../runtime/plan-keep-warm.js';
import { cacheMultipliersFor } from '../../runtime/tail-pricing.js';
import type { ProxyKeepWarmOptions } from './keep-warm-options.js';
import { credentialsOf, pingBody, type StageContext, type StageDependencies, sendPing } from './keep-warm-ping.js';
import type { KeepWarmStats } from './keep-warm-stats.js';
import {
  newConversation,
  noteEntries,
  noteReturn,
  ONE_HOUR,
  pingOverheadTokens,
  protectedPart,
  type WarmConversation,
} from './warm-conversation.js';
import type { WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;

export interface KeepWarmStage {
  /** A completed exchange of a conversation: the client is back (pings stop), and the next idle period is planned. */
  observe(exchange: {
    sessionId: string;
    route: WireRoute;
    path: string;
    headers: Headers;
    body: JsonRecord;
    usage: Usage;
    at: number;
  }): void;
  stats(): KeepWarmStats;
  /** Resolves when no ping is in flight. */
  settled(): Promise<void>;
  /** Cancel every scheduled ping and forget every credential. */
  stop(): void;
}

/** `--keep-warm` refuses bad budgets and ping counts, and an upstream whose wire has no pre-warming request (only Anthropic Messages has one). */
export function checkKeepWarmUpstream(upstream: string, options: ProxyKeepWarmOptions): void {
  for (const [key, value] of [
    ['budgetUsd', options.budgetUsd],
    ['perConversationUsd', options.perConversationUsd],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new ValidationError(`keepWarm.${key}`, 'a budget in USD ≥ 0', String(value));
    }
  }
  // Checked here, not by the planner at the first exchange (whose record it would then break every time).
  const maxPings = options.maxPingsPerIdle;
  if (maxPings !== undefined && !(Number.isInteger(maxPings) && maxPings >= 0)) {
    throw new ValidationError('keepWarm.maxPingsPerIdle', 'a whole number ≥ 0', String(maxPings));
  }
  if (upstream === 'openai' || upstream === 'openrouter') {
    throw new KeepWarmUnsupportedError(
      `the ${upstream} upstream has no pre-warming request (Anthropic's max_tokens: 0 is the only one Cachet knows)`,
    );
  }
}

/**
 * The proxy's keep-warm stage. After each completed Anthropic exchange it plans the coming idle
 * period with `planKeepWarm` (the conversation's own gaps, its cached prefix, the model's
 * prices) and, only when pinging pays, schedules pre-warm requests: the body the client just sent
 * with `max_tokens: 0`, no streaming, and one short text block after its last breakpoint, sent
 * with the client's own credentials. Pings stop when the client comes back, the schedule ends,
 * a budget (per conversation, global) would be passed, or a ping fails (credentials included).
 * Each ping is published as `cache.keepalive` in the conversation's session.
 */
export function createKeepWarmStage(dependencies: StageDependencies): KeepWarmStage {
  const { options, now } = dependencies;
  const budget = options.budgetUsd ?? 1;
  const perConversation = options.perConversationUsd ?? budget / 4;
  const timers = options.timers ?? {
    set: (callback: () => void, ms: number) => setTimeout(callback, ms).unref(),
    clear: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
  };
  const conversations = new Map<string, WarmConversation>();
  const inFlight = new Set<Promise<void>>();
  const stats: KeepWarmStats = { pingsSent: 0, pingsFailed: 0, spentUsd: 0, savedUsd: 0, stoppedByBudget: 0 };

  const endIdle = (conversation: WarmConversation) => {
    for (const handle of conversation.handles) timers.clear(handle);
    conversation.handles = [];
    conversation.credentials = null;
  };
  const context: StageContext = { dependencies, budget, perConversation, stats, endIdle };

  return {
    observe(exchange) {
      const at = exchange.at;
      let conversation = conversations.get(exchange.sessionId);
      if (conversation) {
        noteReturn(conversation, at, stats);
        endIdle(conversation);
        conversations.delete(exchange.sessionId);
      } else {
        conversation = newConversation(at);
      }
      conversations.set(exchange.sessionId, conversation);
      conversation.lastAt = at;
      conversation.lastPingAt = null;
      const body = pingBody(exchange.route, exchange.body);
      const model = typeof exchange.body.model === 'string' ? exchange.body.model : '';
      const prefixTokens = exchange.usage.cacheReadTokens + exchange.usage.cacheWrite5mTokens + exchange.usage.cacheWrite1hTokens;
      if (!body || prefixTokens === 0 || conversation.disabled) return;
      conversation.model = model;
      conversation.prefixTokens = prefixTokens;
      conversation.uncachedTokens = exchange.usage.uncachedInputTokens;
      noteEntries(conversation, exchange.body, exchange.usage, at);
      const price = findPrice('anthropic', model);
      const plan = planKeepWarm({
        prefixTokens,
        gapsMs: conversation.gaps,
        // The exchange is recorded once its reply is over, possibly long after the request read the entry.
        idleMs: Math.max(0, now() - at),
        pricing: cacheMultipliersFor('anthropic', model),
        ttlMs: conversation.ttlMs,
        ...protectedPart(conversation, at),
        ...(price ? { inputPerMTok: price.inputPerMTok } : {}),
        pingOverheadTokens: pingOverheadTokens(conversation),
        ...(options.maxPingsPerIdle === undefined ? {} : { maxPings: options.maxPingsPerIdle }),
      });
      conversation.keeps = plan.keeps;
      conversation.longUntilUnpinged = conversation.longEntry ? conversation.longEntry.refreshedAt + ONE_HOUR : 0;
      if (plan.action !== 'ping') return;
      conversation.credentials = credentialsOf(exchange.headers);
      const warm = conversation;
      plan.scheduleMs.forEach((delay, index) => {
        warm.handles.push(
          timers.set(
            () => {
              const work = sendPing(context, exchange.sessionId, warm, body, exchange.path, index);
              inFlight.add(work);
              void work.finally(() => inFlight.delete(work));
            },
            Math.max(0, delay - (now() - at)),
          ),
        );
      });
    },
    stats: () => ({ ...stats }),
    settled: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    stop() {
      for (const conversation of conversations.values()) endIdle(conversation);
      conversations.clear();
    },
  };
}
