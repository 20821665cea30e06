import { costAtPrice, uncachedCostAtPrice } from '../../cache/cost.js';
import { findPrice, type PriceRow } from '../../cache/pricing.js';
import type { WireTtl } from '../../cache/wire/wire-unit.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ProviderId } from '../../providers/adapter.js';
import type { StreamSummary } from '../../providers/shared/stream-summary.js';
import { activeUserModelRows } from '../../providers/shared/user-model-rows.js';
import type { OutgoingBody } from './body-pieces.js';
import type { CaptureRecord } from './capture-record.js';
import type { Conversation, ConversationTracker } from './conversation-tracker.js';
import { comparePlan, judgeMiss, type PlanModels } from './judge-exchange.js';

type JsonRecord = Record<string, unknown>;

/** One completed exchange, as the record stage receives it. */
export interface Exchange {
  at: number;
  /**
   * The client's body, parsed: under `--plan`, or when a capture or keep-warm needs it; null when
   * the record needed only its model and conversation key (read from its spans).
   */
  clientBody: JsonRecord | null;
  /** The body as sent, parsed (the client's when not planned); null when `clientBody` is. */
  sentBody: JsonRecord | null;
  /** The sent body's `model` ('' when it names none). */
  model: string;
  /** The client's body opens a new turn (`opensTurn`); otherwise it is the next step of the current one. */
  opensTurn: boolean;
  sentBytes: OutgoingBody;
  planned: boolean;
  plannedBreakpoints: string[];
  summary: StreamSummary;
  status: number;
  durationMs: number;
  /** False when the judge queue was full: recorded, not judged. */
  judge: boolean;
  /** The first unjudged exchange of a burst (warned about once). */
  firstDropped: boolean;
  /** The client program, from its `User-Agent` (product token only), when it sent one. */
  client: string | null;
}

export interface RecorderDependencies {
  bus: EventBus | undefined;
  capture: ((record: CaptureRecord) => void) | undefined;
  tracker: ConversationTracker;
  planModels: PlanModels;
  /** Judge what the plan saved (`--plan` without `--no-plan-savings`). */
  planSavings: boolean;
  /** The TTL of the plan's markers (`--ttl`), for the savings judge's lockstep. */
  planTtl: WireTtl;
  /** Exchanges waiting in the judge queue, for the warning's text. */
  pending: () => number;
}

/**
 * The proxy's record stage: per exchange, `session.started` (first exchange), `proxy.forwarded`
 * (with the plan's savings when judged), `usage.recorded` with its cost, the break detector on a
 * shortfall, and a capture line.
 */
export function createExchangeRecorder(
  dependencies: RecorderDependencies,
): (conversation: Conversation, exchange: Exchange) => void {
  const { bus, capture, tracker, planModels } = dependencies;
  const priceOf = priceRowMemo();
  return (conversation, exchange) => {
    const usage = exchange.summary.usage!;
    const model = exchange.model;
    const price = priceOf(conversation.provider, model);
    // The first exchange is turn 0 step 0 whatever it carries; then a user message opens a turn, a tool result is a step.
    if (conversation.recorded > 0) {
      if (exchange.opensTurn) {
        conversation.turn++;
        conversation.step = 0;
      } else {
        conversation.step++;
      }
    }
    const { turn, step } = conversation;
    const first = conversation.recorded++ === 0;
    const durationMs = Math.round(exchange.durationMs * 10) / 10;
    conversation.lastResponseId = exchange.summary.responseId;
    if (bus) {
      if (first) {
        bus.emit('session.started', conversation.id, exchange.at, {
          model,
          provider: conversation.provider,
          strategy: exchange.planned ? 'proxy-plan' : 'proxy',
          source: 'proxy',
          ...(exchange.client ? { client: exchange.client } : {}),
          globalPrefixHash: '',
          sessionPrefixHash: conversation.id,
        });
      }
      bus.emit('proxy.forwarded', conversation.id, exchange.at, {
        turn,
        step,
        provider: conversation.provider,
        model,
        mode: exchange.planned ? 'plan' : 'pass-through',
        status: exchange.status,
        durationMs,
        responseId: exchange.summary.responseId,
        plannedBreakpoints: exchange.plannedBreakpoints,
        plan:
          exchange.judge && exchange.planned && dependencies.planSavings && exchange.clientBody && exchange.sentBody
            ? comparePlan(
                planModels.of(conversation, exchange.sentBytes.byteLength),
                {
                  clientBody: exchange.clientBody,
                  sentBody: exchange.sentBody,
                  breakpoints: exchange.plannedBreakpoints,
                  ttl: dependencies.planTtl,
                  at: exchange.at,
                },
                conversation.provider,
                model,
                price,
              )
            : null,
      });
      bus.emit('usage.recorded', conversation.id, exchange.at, {
        turn,
        step,
        model,
        usage,
        costUsd: costAtPrice(usage, price, conversation.provider, model).costUsd,
        uncachedCostUsd: uncachedCostAtPrice(usage, price, conversation.provider, model).costUsd,
      });
      if (exchange.firstDropped) {
        bus.emit('warning.raised', conversation.id, exchange.at, {
          source: 'proxy.judge',
          message: `judging skipped: ${dependencies.pending()} exchanges were waiting to be recorded (judge queue full); traffic is unaffected`,
        });
      }
    }
    judgeMiss(tracker, conversation, exchange, usage, model, { turn, step });
    if (exchange.clientBody) {
      capture?.({
        at: exchange.at,
        conversation: conversation.id,
        provider: conversation.provider,
        body: exchange.clientBody,
        ...(exchange.planned ? { sent: exchange.sentBody } : {}),
        usage: usage.raw,
        responseId: exchange.summary.responseId,
        ...(usage.cacheMissReason === undefined ? {} : { cacheMissReason: usage.cacheMissReason }),
        status: exchange.status,
        durationMs,
      });
    }
  };
}

/** Distinct (provider, model) price rows remembered at once; a client inventing model names only refills it. */
const PRICE_ROWS_REMEMBERED = 256;

const DAY_MS = 86_400_000;

/**
 * `findPrice` remembered per provider and model: every exchange is priced twice and a look-up
 * matches the model id against the whole table. Forgotten whenever the active models-file rows
 * change (`installUserModelRows`) and each new UTC day (the genai-prices fallback prices at the
 * day's date, and its data carries dated price changes), so a price is always the one
 * `findPrice` would give now.
 */
function priceRowMemo(): (provider: ProviderId, model: string) => PriceRow | null {
  const rows = new Map<string, PriceRow | null>();
  let userRows = activeUserModelRows();
  let day = Math.floor(Date.now() / DAY_MS);
  return (provider, model) => {
    const today = Math.floor(Date.now() / DAY_MS);
    if (activeUserModelRows() !== userRows || today !== day || rows.size >= PRICE_ROWS_REMEMBERED) {
      rows.clear();
      userRows = activeUserModelRows();
      day = today;
    }
    const key = `${provider}\u0000${model}`;
    let row = rows.get(key);
    if (row === undefined) {
      row = findPrice(provider, model);
      rows.set(key, row);
    }
    return row;
  };
}
