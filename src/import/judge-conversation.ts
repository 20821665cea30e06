import { costOf, uncachedCostOf } from '../cache/cost.js';
import type { CacheBreakCause, CacheBreakPayload, CachetEvent, EventType } from '../events/catalog.js';
import { cacheWriteTokens, totalInputTokens } from '../model/usage.js';
import { providerEntry } from '../providers/registry.js';
import type { HarnessId, LoggedRequest, LoggedSession } from './log-record.js';

/** Cache lifetimes the idle-expiry cause is judged against. */
const FIVE_MINUTES = 5 * 60 * 1000;
const ONE_HOUR = 60 * 60 * 1000;
/** Shortfalls below this are rounding (OpenAI reads in 128-token steps), not misses. */
const AUTOMATIC_SLACK = 256;
/** Entry ids remembered per conversation to place a branch (bounded: a branch to an older entry has no path). */
const ENTRY_WINDOW = 4096;

/** What one request left behind for the next to read. */
interface Previous {
  at: number;
  model: string;
  cachedTokens: number;
  lifetimeMs: number;
}

/** A judged request: its figures, and its break when it read less than the previous one left cached. */
export interface JudgedRequest {
  costUsd: number;
  uncachedCostUsd: number;
  priced: boolean;
  cacheBreak: CacheBreakPayload | null;
}

/**
 * One imported conversation: numbers its events, its turns (a prompt and its tool loop) and
 * steps, prices each request and judges each miss. Causes are only those the log can show:
 * `ttl-expired` (a miss after a gap longer than the cache lifetime), `model-changed`,
 * `compaction` (the harness summarised the history), `history-edited` (a branch in a tree
 * log); anything else — the system prompt and tools are not in these logs — is `unknown`.
 */
export class ConversationJudge {
  private seq = 0;
  private turn = -1;
  private step = 0;
  private turnKey: string | null = null;
  private previous: Previous | null = null;
  private compacted = false;
  private branchedAt: { path: string | null } | null = null;
  private lastEntry: string | null = null;
  private readonly entries = new Map<string, number>();
  private entryCount = 0;

  constructor(
    readonly session: LoggedSession,
    private readonly harness: HarnessId,
  ) {}

  started(model: string, provider: string | null, extra: Record<string, string>): CachetEvent {
    return this.event('session.started', this.session.at, {
      model,
      ...(provider ? { provider } : {}),
      strategy: this.harness,
      globalPrefixHash: '',
      sessionPrefixHash: '',
      ...extra,
    });
  }

  entry(id: string, parent: string | null): void {
    if (parent !== null && this.lastEntry !== null && parent !== this.lastEntry) {
      const index = this.entries.get(parent);
      this.branchedAt = { path: index === undefined ? null : `messages[${index + 1}]` };
    }
    this.lastEntry = id;
    this.entries.set(id, this.entryCount++);
    if (this.entries.size > ENTRY_WINDOW) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Drop what only matters inside one file (entry ids): a conversation's state stays a few numbers. */
  release(): void {
    this.entries.clear();
  }

  compaction(): void {
    this.compacted = true;
  }

  /** The events of one request (`usage.recorded`, then `cache.break` on a miss) and its figures. */
  request(request: LoggedRequest): { events: CachetEvent[]; judged: JudgedRequest } {
    if (request.turnKey !== this.turnKey) {
      this.turnKey = request.turnKey;
      this.turn++;
      this.step = 0;
    } else {
      this.step++;
    }
    const { usage, provider, model } = request;
    const cost = provider ? costOf(usage, provider, model) : null;
    const priced = cost?.priced === true;
    const costUsd = priced ? cost.costUsd : (request.loggedCostUsd ?? 0);
    const uncachedCostUsd = priced && provider ? uncachedCostOf(usage, provider, model).costUsd : costUsd;
    const events: CachetEvent[] = [
      this.event('usage.recorded', request.at, {
        turn: this.turn,
        step: this.step,
        model,
        usage: { ...usage, raw: null },
        costUsd,
        uncachedCostUsd,
        ...(request.durationMs === null ? {} : { durationMs: request.durationMs }),
      }),
    ];
    const cacheBreak = this.judgeMiss(request);
    if (cacheBreak) events.push(this.event('cache.break', request.at, cacheBreak));
    return { events, judged: { costUsd, uncachedCostUsd, priced: priced || request.loggedCostUsd !== null, cacheBreak } };
  }

  private judgeMiss(request: LoggedRequest): CacheBreakPayload | null {
    const { usage } = request;
    // Explicit breakpoints (Anthropic's rules, also on Bedrock and OpenRouter's Claude routes): what was
    // read and written stays cached. A log that names no provider is judged by its model's family.
    const explicit =
      request.provider !== null
        ? providerEntry(request.provider).route(request.model).rules === 'anthropic'
        : /claude/i.test(request.model);
    const previous = this.previous;
    const wrote = cacheWriteTokens(usage);
    this.previous = {
      at: request.at,
      model: request.model,
      cachedTokens: explicit ? usage.cacheReadTokens + wrote : totalInputTokens(usage),
      lifetimeMs: usage.cacheWrite1hTokens > 0 ? ONE_HOUR : FIVE_MINUTES,
    };
    const compacted = this.compacted;
    const branchedAt = this.branchedAt;
    this.compacted = false;
    this.branchedAt = null;
    if (!previous) return null;
    const missed = previous.cachedTokens - usage.cacheReadTokens;
    if (missed <= (explicit ? 0 : AUTOMATIC_SLACK)) return null;
    let cause: CacheBreakCause = 'unknown';
    if (request.model !== previous.model) cause = 'model-changed';
    else if (compacted) cause = 'compaction';
    else if (request.at - previous.at > previous.lifetimeMs) cause = 'ttl-expired';
    else if (branchedAt) cause = 'history-edited';
    return {
      turn: this.turn,
      step: this.step,
      cause,
      zone: cause === 'history-edited' || cause === 'compaction' ? 'messages' : null,
      path: cause === 'history-edited' ? (branchedAt?.path ?? null) : null,
      byteOffset: null,
      before: null,
      after: null,
      missedTokens: missed,
    };
  }

  private event(type: EventType, at: number, payload: unknown): CachetEvent {
    return { type, sessionId: this.session.conversation, seq: this.seq++, at, payload } as CachetEvent;
  }
}
