import { costAtPrice } from '../../cache/cost.js';
import type { CacheModel, JudgeContext } from '../../cache/models/cache-verdict.js';
import { type CacheModelOptions, createCacheModel } from '../../cache/models/create-cache-model.js';
import { findPrice, type PriceRow } from '../../cache/pricing.js';
import { BlockCoreMemo } from '../../cache/wire/block-core-memo.js';
import { modelOf } from '../../cache/wire/json-helpers.js';
import { type MovedMarkersHistory, normalizedWithMovedMarkers } from '../../cache/wire/moved-markers.js';
import type { NormalizedWireBody, WireTtl } from '../../cache/wire/wire-unit.js';
import type { ModelledRequestCost, ProxyForwardedPayload } from '../../events/catalog.js';
import { totalInputTokens, type Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import { planKeepsClientMarkers } from '../analyze/planned-lockstep.js';
import { joinedBody, type OutgoingBody } from './body-pieces.js';
import type { Conversation, ConversationTracker, TrackerCounters } from './conversation-tracker.js';
import { parseJsonRecord } from './receive-request.js';
import { wireRouteOfProvider } from './wire-route.js';

/** The proxy's judge stage: the plan's savings against the client's own markers, and the break detector on a shortfall. */

type JsonRecord = Record<string, unknown>;

/** Bytes charged to the plan-savings models by default, all conversations together. */
export const DEFAULT_PLAN_MODEL_BYTES = 256 * 1024 * 1024;
/**
 * Bytes charged per byte of a conversation's current body for its two models. Measured heap:
 * 32 conversations of 500 KB held 57 MB more with the savings models than without (3.5 bytes per
 * body byte: the units' JSON text, hashes, token totals and the block memos of both models).
 */
export const PLAN_MODEL_BYTES_PER_BODY_BYTE = 4;

/**
 * A conversation's two models. `planned` is null while the plan keeps the client's markers (see
 * `comparePlan`): the planned body then judges as the client's, and the client's model stands for
 * both until the first body where they differ, when it is forked.
 */
export interface ConversationPlanModels {
  client: CacheModel;
  planned: CacheModel | null;
  /** The client model's memo of blocks, the reference of the planned model's (it judges copies of the same blocks). */
  clientBlocks: BlockCoreMemo;
  /** The planned bodies' derived normalisations, each linked to the last (their totals and hashes resume). */
  movedMarkers: MovedMarkersHistory;
}

export interface PlanModels {
  /**
   * The conversation's models (client's bodies, planned bodies), most recently used kept;
   * `bodyBytes` is its current body's size, charged `PLAN_MODEL_BYTES_PER_BODY_BYTE` times against the budget.
   */
  of(conversation: Conversation, bodyBytes: number): ConversationPlanModels;
  readonly bytes: number;
  readonly evictions: number;
}

/**
 * Each conversation keeps up to two cache models holding about one normalized copy of its last
 * body each; beyond the byte budget the least recently judged conversations' models are dropped
 * (a conversation judged again after that starts its models cold, so the comparison stays fair).
 */
export function createPlanModels(trackerCounters: TrackerCounters, maxBytes = DEFAULT_PLAN_MODEL_BYTES): PlanModels {
  // The client model keeps its last body's blocks (the next body repeats them).
  const options = (blockMemo: BlockCoreMemo): CacheModelOptions => ({
    anthropic: { counter: trackerCounters.anthropic, blockMemo },
    openai: { counter: trackerCounters.openai },
  });
  const byConversation = new Map<string, ConversationPlanModels & { charged: number }>();
  let bytes = 0;
  let evictions = 0;
  return {
    of(conversation, bodyBytes) {
      let models = byConversation.get(conversation.id);
      if (models) {
        byConversation.delete(conversation.id);
        bytes -= models.charged;
      } else {
        const clientBlocks = new BlockCoreMemo();
        const client = createCacheModel(conversation.provider, options(clientBlocks));
        // Off Anthropic's wire the planned model judges on its own from the start (lockstep is Anthropic's, and needs a fork).
        const lockstep = wireRouteOfProvider(conversation.provider) === 'anthropic' && client.fork !== undefined;
        const planned = lockstep ? null : createCacheModel(conversation.provider, options(new BlockCoreMemo(clientBlocks)));
        models = { client, planned, clientBlocks, movedMarkers: {}, charged: 0 };
      }
      // Charged for two models, as the planned one may be forked from the client's at any body.
      models.charged = PLAN_MODEL_BYTES_PER_BODY_BYTE * bodyBytes;
      bytes += models.charged;
      for (const [id, oldest] of byConversation) {
        if (bytes <= maxBytes) break;
        byConversation.delete(id);
        bytes -= oldest.charged;
        evictions++;
      }
      byConversation.set(conversation.id, models);
      return models;
    },
    get bytes() {
      return bytes;
    },
    get evictions() {
      return evictions;
    },
  };
}

/** What `comparePlan` needs of the plan besides the two bodies. */
export interface PlanJudged {
  clientBody: JsonRecord;
  sentBody: JsonRecord;
  /** Paths of the markers the plan placed (`PlannedBody.breakpoints`). */
  breakpoints: string[];
  /** The plan's TTL. */
  ttl: WireTtl;
  at: number;
}

/**
 * What the client's own body would have read and cost, against the planned body, each judged by
 * the conversation's own cache model (the upstream only ever sees the planned one). Null when a
 * body cannot be judged (a shape the model refuses): the exchange is still recorded.
 *
 * Lockstep: while every body's plan keeps the client's markers (`planKeepsClientMarkers`: the
 * same blocks marked, with the plan's TTL, under Anthropic's rules), the planned body has the
 * client's units and the planned model would hold the client's state, so one model judges both.
 * At the first body where they differ the client's model is forked before it judges that body,
 * and from then on each model judges its own bodies. `priceRow` is `findPrice(provider, model)`,
 * looked up here when not given (the record stage passes its memo's row: a look-up matches the
 * model against the whole price table).
 */
export function comparePlan(
  models: ConversationPlanModels,
  exchange: PlanJudged,
  provider: ProviderId,
  model: string,
  priceRow: PriceRow | null = findPrice(provider, model),
): ProxyForwardedPayload['plan'] {
  const judged = (cacheModel: CacheModel, body: JsonRecord, context: Omit<JudgeContext, 'at'>): ModelledRequestCost | null => {
    try {
      const verdict = cacheModel.judge(body, { at: exchange.at, ...context });
      return {
        inputTokens: verdict.inputTokens,
        cacheReadTokens: verdict.cacheReadTokens,
        cacheWriteTokens: verdict.cacheWriteTokens,
        costUsd: costAtPrice(verdict.usage, priceRow, provider, model).costUsd,
      };
    } catch {
      return null;
    }
  };
  if (models.planned === null && !inLockstep(exchange, provider)) {
    models.planned = models.client.fork!({ blockMemo: new BlockCoreMemo(models.clientBlocks) });
    models.movedMarkers = {};
  }
  if (!models.planned) {
    const both = judged(models.client, exchange.clientBody, {});
    return both && { client: both, planned: both, savedUsd: 0 };
  }
  // The planned body is the client's with markers moved: judged from the client body's normalisation, not its own.
  let clientNormalized: NormalizedWireBody | null = null;
  const client = judged(models.client, exchange.clientBody, { onNormalized: (body) => (clientNormalized = body) });
  const given = clientNormalized && plannedNormalized(clientNormalized, exchange, models.movedMarkers);
  const planned = judged(models.planned, exchange.sentBody, given ? { normalized: given } : {});
  if (!client || !planned) return null;
  return { client, planned, savedUsd: client.costUsd - planned.costUsd };
}

/** The planned body's normalisation from the client body's (null: the planned model normalises it itself). */
function plannedNormalized(
  client: NormalizedWireBody,
  exchange: PlanJudged,
  history: MovedMarkersHistory,
): NormalizedWireBody | null {
  // A body the derivation cannot read is judged the plain way: judging never fails an exchange's record.
  try {
    return normalizedWithMovedMarkers(client, exchange.clientBody, exchange.sentBody, history);
  } catch {
    return null;
  }
}

/** The planned body judges as the client's: Anthropic's wire and rules, and the plan keeps the client's markers. */
function inLockstep(exchange: PlanJudged, provider: ProviderId): boolean {
  if (wireRouteOfProvider(provider) !== 'anthropic') return false;
  if (providerEntry(provider).route(modelOf(exchange.clientBody)).rules !== 'anthropic') return false;
  const plan = { body: exchange.sentBody, lastBreakpointPosition: null, breakpoints: exchange.breakpoints };
  return planKeepsClientMarkers(exchange.clientBody, plan, exchange.ttl);
}

/** Shortfalls smaller than this are rounding (OpenAI reads in 128-token steps), not misses. */
const OPENAI_READ_SLACK = 256;

/**
 * Judge a request with the break detector only when it read less than the previous request
 * left cached (or the provider names a miss): comparing two 50 KB bodies costs about a
 * millisecond, and most requests of a healthy conversation read everything. The detector then
 * publishes `cache.break` with Cachet's cause and the server's.
 */
export function judgeMiss(
  tracker: ConversationTracker,
  conversation: Conversation,
  exchange: { sentBytes: OutgoingBody; at: number; judge: boolean },
  usage: Usage,
  model: string,
  at: { turn: number; step: number },
): void {
  const anthropicRules = providerEntry(conversation.provider).route(model).rules === 'anthropic';
  const written = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  const cachedTokens = anthropicRules ? usage.cacheReadTokens + written : totalInputTokens(usage);
  const previous = conversation.previous;
  tracker.remember(conversation, { bytes: exchange.sentBytes, at: exchange.at, cachedTokens });
  if (!previous || !exchange.judge) return;
  const slack = anthropicRules ? 0 : OPENAI_READ_SLACK;
  const shortfall = previous.cachedTokens - usage.cacheReadTokens > slack;
  if (!shortfall && !usage.cacheMissReason?.missedTokens) return;
  // Both bodies as they went upstream, read from the same bytes form (a plan's object form differs in shape).
  const previousBody = parseJsonRecord(joinedBody(previous.bytes));
  const body = parseJsonRecord(joinedBody(exchange.sentBytes));
  if (!previousBody || !body) return;
  conversation.detector.reset();
  conversation.detector.observe(previousBody, { at: previous.at });
  conversation.detector.observe(body, { at: exchange.at, usage, turn: at.turn, step: at.step });
  // The detector is only asked about this pair: holding its copies until the next miss would double the budget.
  conversation.detector.reset();
}
