import { findPrice } from '../../cache/pricing.js';
import type { Usage } from '../../model/usage.js';
import { KEEP_WARM_DEFAULTS } from '../../runtime/plan-keep-warm.js';
import { cacheMultipliersFor } from '../../runtime/tail-pricing.js';
import type { KeepWarmStats } from './keep-warm-stats.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Gaps remembered per conversation, for the planner. */
const MAX_GAPS = 64;
export const TTL_MS = 5 * 60_000;
export const ONE_HOUR = 60 * 60_000;

/** What the keep-warm stage knows of one conversation: its gaps, its entries, its pings and budget. */
export interface WarmConversation {
  gaps: number[];
  lastAt: number;
  spentUsd: number;
  handles: unknown[];
  /** When the last ping of the current idle period landed (the entry lives `TTL` past it), or null. */
  lastPingAt: number | null;
  prefixTokens: number;
  /**
   * Input the last exchange paid uncached (what followed its last breakpoint): a ping re-sends the
   * whole body, so it pays this again on top of the prefix it reads.
   */
  uncachedTokens: number;
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

export function newConversation(at: number): WarmConversation {
  return {
    gaps: [],
    lastAt: at,
    spentUsd: 0,
    handles: [],
    lastPingAt: null,
    prefixTokens: 0,
    uncachedTokens: 0,
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
export function noteReturn(conversation: WarmConversation, at: number, stats: KeepWarmStats): void {
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
export function noteEntries(conversation: WarmConversation, body: JsonRecord, usage: Usage, at: number): void {
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
export function protectedPart(
  conversation: WarmConversation,
  at: number,
): { protectedTokens?: number; protectedForMs?: number; protectedTtlMs?: number } {
  const long = conversation.longEntry;
  if (!long || conversation.ttlMs >= ONE_HOUR) return {};
  const protectedForMs = long.refreshedAt + ONE_HOUR - at;
  if (protectedForMs <= 0) return {};
  return { protectedTokens: Math.min(long.tokens, conversation.prefixTokens), protectedForMs, protectedTtlMs: ONE_HOUR };
}

/**
 * Input-token equivalents one ping costs: a read of the prefix, or (a long-entry ping) a read of
 * the long entry and a re-write of the rest, plus what it pays uncached (`pingOverheadTokens`).
 */
export function pingTokens(conversation: WarmConversation): number {
  const { read, write5m } = cacheMultipliersFor('anthropic', conversation.model);
  const prefix = conversation.prefixTokens;
  const kept = conversation.keeps === 'long-entry' ? Math.min(prefix, conversation.longEntry?.tokens ?? 0) : prefix;
  return read * kept + write5m * (prefix - kept) + pingOverheadTokens(conversation);
}

/** Uncached input tokens of one ping: the client's body past its last breakpoint, and the ping's own short text. */
export function pingOverheadTokens(conversation: WarmConversation): number {
  return conversation.uncachedTokens + KEEP_WARM_DEFAULTS.pingOverheadTokens;
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
