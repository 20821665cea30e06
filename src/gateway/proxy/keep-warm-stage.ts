import { costOf } from '../../cache/cost.js';
import { findPrice } from '../../cache/pricing.js';
import type { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import { KEEP_WARM_TEXT, KeepWarmUnsupportedError } from '../../runtime/keep-warm.js';
import { planKeepWarm } from '../../runtime/plan-keep-warm.js';
import { cacheMultipliersFor } from '../../runtime/tail-pricing.js';
import type { WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `--keep-warm[=budget]`: pre-warm requests for the conversations the proxy has seen, within budgets. */
export interface ProxyKeepWarmOptions {
  /** Most USD all pings of this proxy together may cost [1]. */
  budgetUsd?: number;
  /** Most USD the pings of one conversation may cost [a quarter of `budgetUsd`]. */
  perConversationUsd?: number;
  /** Pings per idle period at most [12: an hour of 5-minute entries]. */
  maxPingsPerIdle?: number;
  /** Timer functions (tests pass a fake clock's) [setTimeout / clearTimeout, unref'd]. */
  timers?: { set(callback: () => void, ms: number): unknown; clear(handle: unknown): void };
}

/** The client's headers a ping needs to reach the upstream as the client: held in memory only. */
const CREDENTIAL_HEADERS = ['x-api-key', 'authorization', 'anthropic-version', 'anthropic-beta'];
/** Gaps remembered per conversation, for the planner. */
const MAX_GAPS = 64;

export interface KeepWarmStats {
  pingsSent: number;
  pingsFailed: number;
  /** What the sent pings cost, from their own usage, USD. */
  spentUsd: number;
  /** Re-writes the pings avoided (the client came back after the entry would have expired, and read it), USD. */
  savedUsd: number;
  /** Idle periods stopped by a budget. */
  stoppedByBudget: number;
}

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

interface WarmConversation {
  gaps: number[];
  lastAt: number;
  spentUsd: number;
  handles: unknown[];
  /** When the last ping of the current idle period landed (the entry lives `TTL` past it), or null. */
  lastPingAt: number | null;
  prefixTokens: number;
  model: string;
  /** How long the prefix's own entry lives: the TTL of the body's last breakpoint. */
  ttlMs: number;
  /**
   * The newest 1-hour entry the conversation wrote (a `ttl: "1h"` breakpoint before its 5-minute
   * ones): the tokens it holds (read + 1-hour write of the request that wrote it) and when a request
   * last wrote or read it. A pause loses only the rest, and one ping before it expires keeps it.
   */
  longEntry: { tokens: number; refreshedAt: number } | null;
  /** What the current idle period's pings keep (`plan.keeps`), and when the long entry would expire unpinged. */
  keeps: 'prefix' | 'long-entry' | null;
  longUntilUnpinged: number;
  /** Held until the idle period ends or a ping fails; never written anywhere. */
  credentials: Headers | null;
  /** A ping failed (credentials refused, upstream error): no more pings for this conversation. */
  disabled: boolean;
}

const TTL_MS = 5 * 60_000;
const ONE_HOUR = 60 * 60_000;

/** `--keep-warm` refuses an upstream whose wire has no pre-warming request (only Anthropic Messages has one). */
export function checkKeepWarmUpstream(upstream: string, options: ProxyKeepWarmOptions): void {
  for (const [key, value] of [
    ['budgetUsd', options.budgetUsd],
    ['perConversationUsd', options.perConversationUsd],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new ValidationError(`keepWarm.${key}`, 'a budget in USD ≥ 0', String(value));
    }
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
      noteEntries(conversation, exchange.body, exchange.usage, at);
      const price = findPrice('anthropic', model);
      const plan = planKeepWarm({
        prefixTokens,
        gapsMs: conversation.gaps,
        pricing: cacheMultipliersFor('anthropic', model),
        ttlMs: conversation.ttlMs,
        ...protectedPart(conversation, at),
        ...(price ? { inputPerMTok: price.inputPerMTok } : {}),
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

interface StageContext {
  dependencies: StageDependencies;
  budget: number;
  perConversation: number;
  stats: KeepWarmStats;
  endIdle(conversation: WarmConversation): void;
}

/** Send one ping within the budgets and publish it as `cache.keepalive`; a failure disables the conversation's pings. */
async function sendPing(
  context: StageContext,
  sessionId: string,
  conversation: WarmConversation,
  body: JsonRecord,
  path: string,
  index: number,
): Promise<void> {
  const price = findPrice('anthropic', conversation.model);
  const expectedUsd = price ? (pingTokens(conversation) * price.inputPerMTok) / 1e6 : 0;
  if (context.stats.spentUsd + expectedUsd > context.budget || conversation.spentUsd + expectedUsd > context.perConversation) {
    context.stats.stoppedByBudget += 1;
    context.endIdle(conversation);
    context.dependencies.bus?.emit('warning.raised', sessionId, context.dependencies.now(), {
      source: 'proxy.keep-warm',
      message: `keep-warm stopped: the next ping ($${expectedUsd.toFixed(4)}) would pass the ${context.stats.spentUsd + expectedUsd > context.budget ? 'global' : 'per-conversation'} budget`,
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

interface StageDependencies {
  options: ProxyKeepWarmOptions;
  fetchUpstream: typeof fetch;
  upstreamUrl: (path: string) => string;
  now: () => number;
  bus: EventBus | undefined;
}

function newConversation(at: number): WarmConversation {
  return {
    gaps: [],
    lastAt: at,
    spentUsd: 0,
    handles: [],
    lastPingAt: null,
    prefixTokens: 0,
    model: '',
    ttlMs: TTL_MS,
    longEntry: null,
    keeps: null,
    longUntilUnpinged: 0,
    credentials: null,
    disabled: false,
  };
}

/**
 * The client came back: learn the gap, and count the re-write the pings avoided — what the return
 * would have paid for the prefix had no ping been sent, less what it paid with them.
 */
function noteReturn(conversation: WarmConversation, at: number, stats: KeepWarmStats): void {
  const gap = at - conversation.lastAt;
  const price = findPrice('anthropic', conversation.model);
  if (conversation.lastPingAt !== null && price) {
    const { read, write5m } = cacheMultipliersFor('anthropic', conversation.model);
    const prefix = conversation.prefixTokens;
    const kept = Math.min(prefix, conversation.longEntry?.tokens ?? 0);
    const refill = (shortAlive: boolean, longAlive: boolean) =>
      shortAlive ? read * prefix : longAlive ? read * kept + write5m * (prefix - kept) : write5m * prefix;
    const longUntil = (conversation.longEntry?.refreshedAt ?? 0) + ONE_HOUR;
    const withoutPings = refill(gap <= conversation.ttlMs, at <= conversation.longUntilUnpinged);
    const withPings =
      conversation.keeps === 'long-entry'
        ? refill(false, at <= longUntil)
        : refill(at <= conversation.lastPingAt + conversation.ttlMs, at <= longUntil);
    stats.savedUsd += (Math.max(0, withoutPings - withPings) * price.inputPerMTok) / 1e6;
  }
  conversation.gaps.push(gap);
  if (conversation.gaps.length > MAX_GAPS) conversation.gaps.shift();
}

/**
 * Learn the conversation's entries from an exchange: the prefix's own TTL (the body's last
 * breakpoint) and its 1-hour entry — written when the usage shows a 1-hour write (it then holds
 * what was read plus what it wrote: 1-hour breakpoints come before 5-minute ones), refreshed when
 * a body still carrying a 1-hour breakpoint reads it.
 */
function noteEntries(conversation: WarmConversation, body: JsonRecord, usage: Usage, at: number): void {
  const ttls = breakpointTtls(body);
  conversation.ttlMs = ttls.at(-1) === '1h' ? ONE_HOUR : TTL_MS;
  const long = conversation.longEntry;
  if (usage.cacheWrite1hTokens > 0) {
    conversation.longEntry = { tokens: usage.cacheReadTokens + usage.cacheWrite1hTokens, refreshedAt: at };
  } else if (long && ttls.includes('1h') && at - long.refreshedAt < ONE_HOUR && usage.cacheReadTokens >= long.tokens) {
    long.refreshedAt = at;
  }
}

/** The part of the prefix a live 1-hour entry keeps through the pause, for the planner (none when the prefix is all 1 hour). */
function protectedPart(
  conversation: WarmConversation,
  at: number,
): { protectedTokens?: number; protectedForMs?: number; protectedTtlMs?: number } {
  const long = conversation.longEntry;
  if (!long || conversation.ttlMs >= ONE_HOUR) return {};
  const protectedForMs = long.refreshedAt + ONE_HOUR - at;
  if (protectedForMs <= 0) return {};
  return { protectedTokens: Math.min(long.tokens, conversation.prefixTokens), protectedForMs, protectedTtlMs: ONE_HOUR };
}

/** Input-token equivalents one ping costs: a read of the prefix, or (a long-entry ping) a read of the long entry and a re-write of the rest. */
function pingTokens(conversation: WarmConversation): number {
  const { read, write5m } = cacheMultipliersFor('anthropic', conversation.model);
  const prefix = conversation.prefixTokens;
  const kept = conversation.keeps === 'long-entry' ? Math.min(prefix, conversation.longEntry?.tokens ?? 0) : prefix;
  return read * kept + write5m * (prefix - kept) + 8;
}

/** The TTLs of a Messages body's breakpoints, in prefix order (tools, system, messages). */
function breakpointTtls(body: JsonRecord): Array<'5m' | '1h'> {
  const ttls: Array<'5m' | '1h'> = [];
  const visit = (block: unknown) => {
    if (isRecord(block) && isRecord(block.cache_control)) ttls.push(block.cache_control.ttl === '1h' ? '1h' : '5m');
  };
  if (Array.isArray(body.tools)) body.tools.forEach(visit);
  if (Array.isArray(body.system)) body.system.forEach(visit);
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (isRecord(message) && Array.isArray(message.content)) message.content.forEach(visit);
  }
  return ttls;
}

/** The client's credentials and API version headers, and a JSON content type. */
function credentialsOf(headers: Headers): Headers {
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
