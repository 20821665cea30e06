import type { CachetEvent } from '../events/catalog.js';
import type { CanonicalRequest, TailItem, Zone } from '../model/request.js';
import type { ConversionMetadata, ProviderAdapter, ProviderId } from '../providers/adapter.js';
import { isProviderId, providerEntry } from '../providers/registry.js';
import { assemble } from '../session/assemble.js';
import type { TailScopePricing } from '../session/choose-tail-scope.js';
import { resolveTurnTail, type ScopeDecision } from '../session/resolve-turn-tail.js';
import type { Session } from '../session/session.js';
import { countRequestTokens } from '../tokens/count-request-tokens.js';
import { counterForModel } from '../tokens/counter-for-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { BlockDeltaTracker } from './block-delta.js';
import { tailPricingFor } from './tail-pricing.js';

export interface PrepareRequestOptions<Options> {
  /** The turn (1-based) and the step within it (0-based), for events and reports. */
  turn: number;
  step: number;
  /** The request's time; defaults to the session's clock. */
  now?: number;
  /** Tail items for this request only (matched skills, recall, working context...). */
  tail?: TailItem[];
  /**
   * Adapter options, or a function of the assembled request and its zone sizes when the
   * options depend on them (a TTL chosen from the prefix size), so nothing is assembled twice.
   */
  adapterOptions?: Options | ((assembled: { request: CanonicalRequest; zoneTokens: Record<Zone, number> }) => Options);
  /** Counts zone sizes for the event; defaults to the model's counter (`counterForModel`). */
  counter?: TokenCounter;
  /** Multipliers for `auto` tail scopes [the price table's, `tailPricingFor`]. */
  tailPricing?: TailScopePricing;
  /**
   * You know no request follows this one (the session's last) [false]: where the adapter places
   * history breakpoints (Anthropic, Bedrock) the history one stays at the previous request's entry
   * (pass its `cacheState` as `previous`), so the new segment goes uncached instead of being written
   * for nobody to read. Added to `adapterOptions` as the provider's `finalRequest`; ignored elsewhere.
   */
  finalRequest?: boolean;
}

export interface PreparedRequest<Body, Metadata extends ConversionMetadata = ConversionMetadata> {
  request: CanonicalRequest;
  body: Body;
  /** The adapter's metadata, typed as its `convertRequest` returns it (Anthropic: `cacheState`, no cast). */
  metadata: Metadata;
  zoneTokens: Record<Zone, number>;
  /** The `request.assembled` event, when the session has a bus. */
  event: CachetEvent<'request.assembled'> | null;
  /** Scope chosen for each tail item, and why. */
  tailScopes: ScopeDecision[];
}

/**
 * Counters by provider and model. Not per session: bounded by the models a process uses, and
 * capped (oldest dropped first) for a process that takes model ids from its clients (a proxy).
 */
const countersByModel = new Map<string, TokenCounter>();
const MAX_SHARED_COUNTERS = 64;
/** The previous request of each session (a WeakMap by session object), for the block delta of `request.assembled`. */
const blockDeltas = new BlockDeltaTracker();

/** One counter per provider and model, loaded once (tokenizers are large). */
export function sharedCounter(provider: string, model: string): TokenCounter {
  const key = `${provider}\u0000${model}`;
  let counter = countersByModel.get(key);
  if (!counter) {
    counter = counterForModel(provider, model);
    if (countersByModel.size >= MAX_SHARED_COUNTERS) countersByModel.delete(countersByModel.keys().next().value as string);
    countersByModel.set(key, counter);
  }
  return counter;
}

/**
 * The request cycle's first half: assemble the session's four zones, convert them with the
 * provider's adapter and publish `request.assembled` (zone sizes, block hashes, breakpoints,
 * padding decision). Send `body` with the provider's SDK, then call `recordUsage`.
 *
 * @example
 * const prepared = prepareRequest(session, anthropicAdapter, { turn: 1, step: 0, tail: [recall] });
 * const message = await client.messages.create(prepared.body);
 * recordUsage(session, anthropicAdapter.parseUsage(message), { turn: 1, step: 0, price: pricedBy('anthropic') });
 */
export function prepareRequest<Body, Options, Metadata extends ConversionMetadata = ConversionMetadata>(
  session: Session,
  adapter: Omit<ProviderAdapter<Body, Options>, 'convertRequest'> & {
    convertRequest(request: CanonicalRequest, options?: Options): { body: Body; metadata: Metadata };
  },
  options: PrepareRequestOptions<Options>,
): PreparedRequest<Body, Metadata> {
  const now = options.now ?? session.clock();
  const counter = options.counter ?? sharedCounter(adapter.id, session.model);
  // Turn-scoped tail items are persisted into the turn's opening message before it is sent.
  const tail = resolveTurnTail(session, {
    now,
    tail: options.tail,
    countTokens: (text) => counter.countText(text),
    pricing: options.tailPricing ?? tailPricingFor(adapter.id, session.model),
  });
  const request = assemble(session, { now, resolvedTail: tail.items });
  const zoneTokens = zoneTokensOf(request, counter);
  const planned =
    typeof options.adapterOptions === 'function'
      ? (options.adapterOptions as (assembled: { request: CanonicalRequest; zoneTokens: Record<Zone, number> }) => Options)({
          request,
          zoneTokens,
        })
      : options.adapterOptions;
  const adapterOptions = options.finalRequest && isProviderId(adapter.id) ? withFinalRequest(adapter.id, planned) : planned;
  const converted = adapter.convertRequest(request, adapterOptions);
  session.noteRequest();
  const event =
    session.bus?.emit('request.assembled', session.id, now, {
      turn: options.turn,
      step: options.step,
      provider: adapter.id,
      model: request.model,
      zoneTokens,
      ...blockDeltas.next(session, request),
      breakpoints: converted.metadata.breakpoints,
      padding: converted.metadata.padding,
      warnings: converted.metadata.warnings,
    }) ?? null;
  return { request, body: converted.body, metadata: converted.metadata, zoneTokens, event, tailScopes: tail.decisions };
}

/** The adapter's options with the provider's own `finalRequest` (nothing where it has none). */
function withFinalRequest<Options>(provider: ProviderId, options: Options | undefined): Options {
  return { ...(options ?? {}), ...providerEntry(provider).planOptions({ finalRequest: true }) } as Options;
}

/** Tokens per zone of a canonical request. */
export function zoneTokensOf(request: CanonicalRequest, counter: TokenCounter): Record<Zone, number> {
  const counted = countRequestTokens(request, counter);
  return { global: counted.global, session: counted.session, history: counted.history, tail: counted.tail };
}

/** @internal Counters held by `sharedCounter` (a test seam for bounded state). */
export function sharedCounterCount(): number {
  return countersByModel.size;
}
