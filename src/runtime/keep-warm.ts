import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { wouldPassBudget } from '../model/budget.js';
import { ValidationError } from '../model/errors.js';
import { convertToAnthropic } from '../providers/anthropic/convert-request.js';
import type { CacheMultipliers } from '../providers/shared/price-row.js';
import { assemble } from '../session/assemble.js';
import type { Session } from '../session/session.js';
import { KEEP_WARM_DEFAULTS, type KeepWarmPlan, planKeepWarm } from './plan-keep-warm.js';
import { sharedCounter, zoneTokensOf } from './prepare-request.js';
import { assertPrewarming, KeepWarmUnsupportedError } from './prewarming.js';
import type { SessionTtl } from './session-ttl.js';
import { TTL_LIFETIME_MS } from './ttl-policy.js';

export { KeepWarmUnsupportedError } from './prewarming.js';

/** The text of a ping's own user message, after the last breakpoint (never cached, a few tokens). */
export const KEEP_WARM_TEXT = '(keep-alive: no reply needed)';

/**
 * The pre-warm request for a session's current prefix (Anthropic Messages): the session's exact
 * tools, system and history with their breakpoints, one short user message after the last one,
 * and `max_tokens: 0`, so Anthropic reads (and so refreshes) the cached prefix and generates
 * nothing. Anthropic refuses `max_tokens: 0` with streaming, extended thinking or structured
 * outputs, and a ping without the session's thinking setting would not read the messages
 * cache (thinking is part of its key): such sessions get `KeepWarmUnsupportedError`.
 *
 * @example
 * const body = keepWarmBody(session);
 * await client.messages.create(body); // usage.cache_read_input_tokens ≈ the prefix
 */
export function keepWarmBody(session: Session): MessageCreateParamsNonStreaming {
  assertPrewarming('anthropic', session.model);
  if (session.history.length === 0 && session.sessionMessages.length === 0 && session.system.length === 0) {
    throw new KeepWarmUnsupportedError('the session is empty: there is no prefix to keep warm');
  }
  if (session.params.thinking && session.params.thinking.type !== 'disabled') {
    throw new KeepWarmUnsupportedError(
      'the session uses extended thinking, which max_tokens: 0 does not allow; a ping without it would not read the messages cache',
    );
  }
  const request = assemble(session, {
    resolvedTail: [{ kind: 'custom', text: KEEP_WARM_TEXT, scope: 'request', position: 'end' }],
  });
  const { body } = convertToAnthropic(request, { padding: 'never' });
  return { ...body, max_tokens: 0 };
}

export interface KeepWarmOptions {
  /** Sends a body with your own client (`client.messages.create(body)`). Cachet never sends on its own. */
  send: (body: MessageCreateParamsNonStreaming) => Promise<unknown>;
  /** Idle periods seen so far (this session's gaps and earlier sessions', `sessionRhythmFromTrace`), ms. */
  gapsMs: readonly number[];
  /** The model's cache multipliers (its price row: `cacheMultipliersOf`). */
  pricing: CacheMultipliers;
  /** The model's input rate, USD per million tokens: pings are priced and budgeted in USD. */
  inputPerMTok?: number | undefined;
  /** Most USD the pings of this idle period may cost; no ping is sent that would pass it (needs `inputPerMTok`). */
  budgetUsd?: number;
  /** Time since the last request, ms [0]. */
  idleMs?: number;
  /**
   * The history TTL the last request wrote (`chooseHistoryTtl`'s choice) ['5m']: how long the
   * prefix's own entry lives after each read.
   */
  historyTtl?: '5m' | '1h';
  /**
   * A live 1-hour entry the session wrote earlier (`chooseHistoryTtl` chose `1h` for an earlier
   * request): the tokens of the prefix it holds, and when a request last wrote or read it (the
   * session's clock, ms). A pause then loses only the rest of the prefix, and the plan may keep
   * that entry with one ping just before it expires instead of twelve short ones
   * (`plan.keeps: 'long-entry'`) [none].
   */
  longEntry?: { tokens: number; refreshedAt: number };
  /**
   * The session's TTL policy (`SessionTtl`) [none]: `historyTtl` and `longEntry` default to what it
   * saw written, each ping sent is reported to it (`pinged`: the entries were refreshed), and it
   * prices later 1-hour writes against pings from now on (`keepWarm`).
   */
  ttl?: SessionTtl;
  /** Timer functions (tests pass fake ones) [global setTimeout / clearTimeout, unref'd]. */
  timers?: { set(callback: () => void, ms: number): unknown; clear(handle: unknown): void };
  /** Called with a failed `send`; the conversation is never affected. */
  onError?: (error: unknown) => void;
}

export interface KeepWarmHandle {
  readonly plan: KeepWarmPlan;
  /** Pings sent so far, and what they cost (USD; 0 when unpriced). */
  readonly pingsSent: number;
  readonly spentUsd: number;
  /** Why it stopped: `done` (schedule over), `moved-on` (the session took a new message), `budget`, `stopped`. */
  readonly stoppedBecause: 'done' | 'moved-on' | 'budget' | 'stopped' | null;
  /** Cancel the pings not yet sent (call it before you send the session's next request). */
  stop(): void;
}

/**
 * Keep a session's cache warm through one idle period, as `planKeepWarm` prices it: pings (each
 * `keepWarmBody`, sent with your `send`) at the planned times, a `cache.keepalive` event for each
 * with its cost, and no ping once the session has moved on, the budget would be passed or the
 * schedule is over. The plan may be to send nothing (`plan.action`).
 *
 * @example
 * const warm = startKeepWarm(session, { send: (body) => client.messages.create(body), gapsMs, pricing, inputPerMTok: 3 });
 * // … the user comes back:
 * warm.stop();
 */
export function startKeepWarm(session: Session, given: KeepWarmOptions): KeepWarmHandle {
  // The TTL policy's facts fill in what the caller left out.
  const options: KeepWarmOptions = given.ttl ? { ...given.ttl.keepWarmFacts, ...given } : given;
  if (options.budgetUsd !== undefined && !(Number.isFinite(options.budgetUsd) && options.budgetUsd >= 0)) {
    throw new ValidationError('budgetUsd', 'a finite number ≥ 0', String(options.budgetUsd));
  }
  // Unpriced pings cost an unknown amount: a budget in USD would be passed without a word.
  if (options.budgetUsd !== undefined && options.inputPerMTok === undefined) {
    throw new ValidationError(
      'budgetUsd',
      'a budget given with inputPerMTok (the price pings are counted in)',
      'no inputPerMTok',
    );
  }
  const longTokens = options.longEntry?.tokens;
  if (longTokens !== undefined && !(Number.isFinite(longTokens) && longTokens >= 0)) {
    throw new ValidationError('longEntry.tokens', 'a finite number ≥ 0', String(longTokens));
  }
  const first = keepWarmBody(session);
  options.ttl?.keptWarm();
  const counted = zoneTokensOf(assemble(session), sharedCounter('anthropic', session.model));
  const prefixTokens = counted.global + counted.session + counted.history;
  const idle = options.idleMs ?? 0;
  const long = longEntryInput(options, prefixTokens, session.clock() - idle);
  const plan = planKeepWarm({
    prefixTokens,
    gapsMs: options.gapsMs,
    pricing: options.pricing,
    ttlMs: TTL_LIFETIME_MS[options.historyTtl ?? '5m'],
    ...long,
    ...(options.inputPerMTok === undefined ? {} : { inputPerMTok: options.inputPerMTok }),
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
  });
  const timers = options.timers ?? {
    set: (callback: () => void, ms: number) => setTimeout(callback, ms).unref(),
    clear: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
  };
  // A ping past the short entry's life (a long-entry ping) reads the kept part and re-writes the rest.
  const { read, write5m } = options.pricing;
  const kept = plan.keeps === 'long-entry' ? (long.protectedTokens ?? 0) : prefixTokens;
  const pingTokens = read * kept + write5m * (prefixTokens - kept) + KEEP_WARM_DEFAULTS.pingOverheadTokens;
  const pingCostUsd = options.inputPerMTok === undefined ? null : (pingTokens * options.inputPerMTok) / 1e6;
  const snapshot = { history: session.history.length, turn: session.turn };
  const state = { pingsSent: 0, spentUsd: 0, stoppedBecause: null as KeepWarmHandle['stoppedBecause'] };
  const handles: unknown[] = [];
  const stopWith = (reason: NonNullable<KeepWarmHandle['stoppedBecause']>) => {
    if (state.stoppedBecause) return;
    state.stoppedBecause = reason;
    for (const handle of handles) timers.clear(handle);
  };
  const ping = async (index: number) => {
    if (state.stoppedBecause) return;
    if (session.history.length !== snapshot.history || session.turn !== snapshot.turn) return stopWith('moved-on');
    if (
      pingCostUsd !== null &&
      options.budgetUsd !== undefined &&
      wouldPassBudget(state.spentUsd, pingCostUsd, options.budgetUsd)
    ) {
      return stopWith('budget');
    }
    let error: string | null = null;
    try {
      await options.send(index === 0 ? first : keepWarmBody(session));
      state.pingsSent += 1;
      state.spentUsd += pingCostUsd ?? 0;
      options.ttl?.pinged(session.clock());
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
      try {
        options.onError?.(failure);
      } catch (handlerFailure) {
        // A ping runs on a timer: anything thrown here would be an unhandled rejection, which ends the process.
        const message = handlerFailure instanceof Error ? handlerFailure.message : String(handlerFailure);
        session.bus?.emit('warning.raised', session.id, session.clock(), {
          source: 'keep-warm',
          message: `onError threw on a failed ping (${message}); the conversation is not affected`,
        });
      }
    }
    session.bus?.emit('cache.keepalive', session.id, session.clock(), {
      provider: 'anthropic',
      model: session.model,
      ping: index + 1,
      prefixTokens,
      costUsd: error ? null : pingCostUsd,
      spentUsd: pingCostUsd === null ? null : state.spentUsd,
      expectedSavingUsd: plan.expectedSavingUsd,
      sent: error === null,
      error,
    });
    if (index === plan.scheduleMs.length - 1) stopWith('done');
  };
  if (plan.action !== 'ping') state.stoppedBecause = 'done';
  else {
    plan.scheduleMs.forEach((at, index) => {
      handles.push(timers.set(() => void ping(index), Math.max(0, at - idle)));
    });
  }
  return {
    plan,
    get pingsSent() {
      return state.pingsSent;
    },
    get spentUsd() {
      return state.spentUsd;
    },
    get stoppedBecause() {
      return state.stoppedBecause;
    },
    stop: () => stopWith('stopped'),
  };
}

/** The planner's protected part: the live 1-hour entry's tokens and how long it has left from the last request. */
function longEntryInput(
  options: KeepWarmOptions,
  prefixTokens: number,
  lastRequestAt: number,
): { protectedTokens?: number; protectedForMs?: number; protectedTtlMs?: number } {
  const entry = options.longEntry;
  if (!entry || (options.historyTtl ?? '5m') === '1h') return {};
  const protectedForMs = entry.refreshedAt + TTL_LIFETIME_MS['1h'] - lastRequestAt;
  if (protectedForMs <= 0 || entry.tokens <= 0) return {};
  return { protectedTokens: Math.min(entry.tokens, prefixTokens), protectedForMs, protectedTtlMs: TTL_LIFETIME_MS['1h'] };
}
