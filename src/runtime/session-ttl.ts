import { ValidationError } from '../model/errors.js';
import type { BlockRecord, CanonicalRequest, Zone } from '../model/request.js';
import { requestBlockCount, requestBlockSource, requestReader } from '../model/request-view.js';
import type { ProviderId } from '../providers/adapter.js';
import type { PlanInputs } from '../providers/provider-entry.js';
import { providerEntry } from '../providers/registry.js';
import type { Session } from '../session/session.js';
import { addGap, type GapTally, tallyGaps } from './gap-tally.js';
import { prewarmingParamsReason, prewarmingUnsupportedReason } from './prewarming.js';
import type { RequestKind } from './session-rhythm.js';
import { cacheMultipliersFor } from './tail-pricing.js';
import {
  chooseHistoryTtl,
  estimateWriteTokens,
  type LongEntry,
  type PreviousPrefix,
  protectedTokens,
  TTL_LIFETIME_MS,
  type TtlChoice,
} from './ttl-policy.js';

export interface SessionTtlOptions {
  /** Where the session's requests go: the model's cache multipliers and whether it takes a pre-warm request. */
  provider: ProviderId;
  /**
   * Earlier sessions' rhythm (`sessionRhythmFromTrace`): their gaps, and the same gaps by the kind of
   * request before each [none: the policy learns from this session alone].
   */
  prior?: { gapsMs: readonly number[]; kindGapsMs?: Readonly<Record<RequestKind, readonly number[]>> };
  /**
   * You keep the cache warm between requests (`startKeepWarm`, or `cachet proxy --keep-warm`) [false
   * until `startKeepWarm` runs with this policy as its `ttl`]: a pause then costs at most the pings,
   * and the 1-hour write is priced against them. Ignored on a model without a pre-warm request.
   */
  keepWarm?: boolean;
  /** Tokens each request is expected to add [this session's average growth so far]. */
  expectedGrowthTokens?: number;
  /** Requests the session is expected to make in all [unknown]: none left means no 1-hour write. */
  expectedRequests?: number;
  /** `auto` [default]: `chooseHistoryTtl`; or a fixed TTL (the entries are still tracked for keep-warm). */
  ttl?: 'auto' | '5m' | '1h';
}

/** The request `prepareRequest` assembled, as its `adapterOptions` callback receives it. */
export interface AssembledRequest {
  request: CanonicalRequest;
  zoneTokens: Record<Zone, number>;
}

export interface SessionTtlRequestOptions {
  /** When the request is sent [the session's clock]. */
  now?: number;
  /** No request follows this one: 5 minutes, and the adapter keeps the history breakpoint at the previous entry. */
  finalRequest?: boolean;
  /** Requests expected after this one, when the caller counts them itself [from `expectedRequests`]. */
  remainingRequests?: number;
  /**
   * This request's TTL, decided by the caller (a policy of its own) [the session's `ttl` option]:
   * the entries it writes are still tracked, for later write estimates and keep-warm.
   */
  ttl?: '5m' | '1h';
}

/**
 * The history TTL of one session's requests, chosen by `chooseHistoryTtl` with every input the
 * session can supply: its gaps so far and the kind of request before each (a turn start, when it
 * is the first request of its turn, or a tool step), the priors of earlier sessions, the prefix
 * the request re-writes (`estimateWriteTokens`) and what an earlier 1-hour entry still protects,
 * whether you keep the cache warm, the growth per request and the requests left. The simulator's
 * Cachet runs the same object. Call `choose` (or pass `adapterOptions()` to `prepareRequest`) once
 * per request, `pinged` for each keep-warm ping, and hand `keepWarmFacts` to `startKeepWarm`.
 *
 * @example
 * const ttl = new SessionTtl(session, { provider: 'anthropic', prior: await sessionRhythmFromTrace(store), keepWarm: true });
 * const prepared = prepareRequest(session, anthropicAdapter, { turn, step, adapterOptions: ttl.adapterOptions() });
 */
export class SessionTtl {
  /** This session's gaps between requests so far, in ms (grows by one per request). */
  readonly gapsMs: number[] = [];
  /** Tallies of the gaps `chooseHistoryTtl` reads, kept one gap at a time (the lists only grow). */
  private readonly gapTally: GapTally = tallyGaps();
  private readonly priorTally: GapTally;
  private readonly kindTallies: Record<RequestKind, GapTally>;
  private lastRequest: { at: number; kind: RequestKind; turn: number } | null = null;
  private previousPrefix: PreviousPrefix | null = null;
  private long: LongEntry | null = null;
  private firstPrefixTokens: number | null = null;
  private requests = 0;
  private lastTtl: '5m' | '1h' = '5m';
  private keepWarm: boolean;
  /** Prefix hashes of the request being chosen for, rewritten in place (nothing keeps them). */
  private readonly prefixHashes: string[] = [];
  private readonly writtenHashes: WrittenPrefixHashes = { source: null, reusable: 0, staticEndAt: -1 };

  constructor(
    private readonly session: Session,
    private readonly options: SessionTtlOptions,
  ) {
    const growth = options.expectedGrowthTokens;
    if (growth !== undefined && !(Number.isFinite(growth) && growth >= 0)) {
      throw new ValidationError('expectedGrowthTokens', 'a finite number ≥ 0', String(growth));
    }
    const expected = options.expectedRequests;
    if (expected !== undefined && !(Number.isInteger(expected) && expected >= 0)) {
      throw new ValidationError('expectedRequests', 'an integer ≥ 0', String(expected));
    }
    this.keepWarm = options.keepWarm === true;
    this.priorTally = tallyGaps(options.prior?.gapsMs);
    const kinds = options.prior?.kindGapsMs;
    this.kindTallies = { 'turn-start': tallyGaps(kinds?.['turn-start']), 'tool-step': tallyGaps(kinds?.['tool-step']) };
  }

  /** The newest 1-hour entry the session wrote (what a pause would not expire), or null. */
  get longEntry(): LongEntry | null {
    return this.long;
  }

  /** The TTL the last request's history breakpoint was written with. */
  get historyTtl(): '5m' | '1h' {
    return this.lastTtl;
  }

  /** What `startKeepWarm` needs to know of the entries: the last TTL and a live 1-hour entry's prefix. */
  get keepWarmFacts(): { historyTtl: '5m' | '1h'; longEntry?: { tokens: number; refreshedAt: number } } {
    const long = this.long;
    return {
      historyTtl: this.lastTtl,
      ...(long && long.model === this.session.model ? { longEntry: { tokens: long.prefixTokens, refreshedAt: long.at } } : {}),
    };
  }

  /** Choose the TTL of the request just assembled, and remember what it writes. */
  choose(assembled: AssembledRequest, options: SessionTtlRequestOptions = {}): TtlChoice {
    const { request, zoneTokens } = assembled;
    const at = options.now ?? this.session.clock();
    const kind = this.kindOf();
    if (this.lastRequest) {
      const gap = at - this.lastRequest.at;
      this.gapsMs.push(gap);
      addGap(this.gapTally, gap);
      addGap(this.kindTallies[this.lastRequest.kind], gap);
    }
    this.lastRequest = { at, kind, turn: this.session.turn };
    const prefixTokens = zoneTokens.global + zoneTokens.session + zoneTokens.history;
    this.firstPrefixTokens ??= prefixTokens;
    this.requests += 1;
    const staticEnd = persistedPrefixHashes(request, this.prefixHashes, this.writtenHashes);
    const current = {
      at,
      model: request.model,
      params: request.params,
      prefixHashes: this.prefixHashes,
      staticPrefixHash: staticEnd,
      prefixTokens,
      historyTokens: zoneTokens.history,
    };
    const mode = options.ttl ?? this.options.ttl ?? 'auto';
    const choice: TtlChoice =
      mode === 'auto' ? this.chooseAuto(current, kind, options) : { ttl: mode, reason: `fixed ${mode} TTL`, pauseShare: 0 };
    const lastHash = current.prefixHashes.at(-1) ?? '';
    if (choice.ttl === '1h') this.long = { at, model: request.model, prefixHash: lastHash, prefixTokens };
    this.previousPrefix = {
      at,
      model: request.model,
      lastPrefixHash: lastHash,
      staticPrefixHash: staticEnd,
      prefixTokens,
      lifetimeMs: TTL_LIFETIME_MS[choice.ttl],
    };
    this.lastTtl = choice.ttl;
    return choice;
  }

  /**
   * `prepareRequest`'s `adapterOptions`: the chosen TTL (and `finalRequest`) in the provider's own
   * options, with any other planning inputs you pass.
   */
  adapterOptions(
    options: SessionTtlRequestOptions & { plan?: Omit<PlanInputs, 'historyTtl' | 'finalRequest'> } = {},
  ): (assembled: AssembledRequest) => Record<string, unknown> {
    return (assembled) => {
      const choice = this.choose(assembled, options);
      return providerEntry(this.options.provider).planOptions({
        ...options.plan,
        historyTtl: choice.ttl,
        ...(options.finalRequest ? { finalRequest: true } : {}),
      });
    };
  }

  /** `startKeepWarm` keeps this session warm: later 1-hour writes are priced against its pings (unless `keepWarm: false`). */
  keptWarm(): void {
    if (this.options.keepWarm !== false) this.keepWarm = true;
  }

  /** A keep-warm ping read the prefix at `at` and refreshed its entries: the next write estimate starts from it. */
  pinged(at: number): void {
    if (this.previousPrefix) this.previousPrefix = { ...this.previousPrefix, at };
    if (this.long) this.long = { ...this.long, at };
  }

  /** A turn start is the first request since the session's turn changed (or the first request). */
  private kindOf(): RequestKind {
    return this.lastRequest === null || this.lastRequest.turn !== this.session.turn ? 'turn-start' : 'tool-step';
  }

  private chooseAuto(
    current: Parameters<typeof estimateWriteTokens>[0] & { params: CanonicalRequest['params'] },
    kind: RequestKind,
    options: SessionTtlRequestOptions,
  ): TtlChoice {
    const { provider, expectedRequests } = this.options;
    const remaining = options.finalRequest
      ? 0
      : (options.remainingRequests ??
        (expectedRequests === undefined ? undefined : Math.max(0, expectedRequests - this.requests)));
    const growth = this.options.expectedGrowthTokens ?? this.learnedGrowth(current.prefixTokens);
    return chooseHistoryTtl({
      gapsMs: this.gapTally,
      priorGapsMs: this.priorTally,
      kindGapsMs: this.kindTallies[kind],
      ...(growth === undefined ? {} : { expectedGrowthTokens: growth }),
      // Pings are priced only where they can be sent: a model with a pre-warm request, a request without thinking.
      keepWarm:
        this.keepWarm &&
        prewarmingUnsupportedReason(provider, current.model) === null &&
        prewarmingParamsReason(current.params) === null,
      prefixTokens: current.prefixTokens,
      newTokens: estimateWriteTokens(current, this.previousPrefix, this.long),
      protectedTokens: protectedTokens(current, this.long),
      ...(remaining === undefined ? {} : { expectedRemainingRequests: remaining }),
      pricing: cacheMultipliersFor(provider, current.model),
    });
  }

  /** The session's average growth per request so far (unknown before its second request). */
  private learnedGrowth(prefixTokens: number): number | undefined {
    if (this.requests < 2 || this.firstPrefixTokens === null) return undefined;
    return Math.max(0, Math.round((prefixTokens - this.firstPrefixTokens) / (this.requests - 1)));
  }
}

/**
 * What `persistedPrefixHashes` wrote last for one caller: the entries below `reusable` were read
 * from `source`, which never changes below a length it has handed out, so they stay true.
 */
export interface WrittenPrefixHashes {
  source: readonly BlockRecord[] | null;
  /** Leading entries read from `source` (every one before the first tail block). */
  reusable: number;
  /** Index of the static zones' last block among the entries (-1 without any). */
  staticEndAt: number;
}

/**
 * The prefix hash of every persisted block (the turn tail left out) written into `into`, read
 * without copying the request's blocks; returns the static zones' last one ('' without any).
 * With `written` (kept by the caller with `into`, from `{ source: null, reusable: 0,
 * staticEndAt: -1 }`), the entries read last time from the session's same append-only block
 * array are kept and only the blocks after them are read: work for what the request adds, not
 * for the whole history.
 */
export function persistedPrefixHashes(request: CanonicalRequest, into: string[], written?: WrittenPrefixHashes): string {
  const reader = requestReader(request);
  const count = requestBlockCount(request);
  const source = written ? requestBlockSource(request) : null;
  const keep = source !== null && source === written?.source ? Math.min(written.reusable, count) : 0;
  // The kept entries' static end stays theirs; one past them (never seen) means reading all again.
  const kept = written !== undefined && written.staticEndAt < keep;
  let staticEndAt = kept ? written.staticEndAt : -1;
  let index = kept ? keep : 0;
  let length = index;
  let reusable = index;
  for (; index < count; index++) {
    const block = reader.blockAt(index) as BlockRecord;
    if (block.zone === 'tail') continue;
    if (reusable === index && source !== null && source[index] === block) reusable++;
    into[length] = block.prefixHash;
    if (block.zone !== 'history') staticEndAt = length;
    length++;
  }
  into.length = length;
  if (written) {
    written.source = source;
    written.reusable = reusable;
    written.staticEndAt = staticEndAt;
  }
  return staticEndAt >= 0 ? into[staticEndAt]! : '';
}
