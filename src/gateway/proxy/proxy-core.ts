import { randomBytes } from 'node:crypto';
import type { EventBus } from '../../events/event-bus.js';
import type { ProviderId } from '../../providers/adapter.js';
import type { StreamSummary } from '../../providers/shared/stream-summary.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import type { OutgoingBody } from './body-pieces.js';
import type { CaptureRecord } from './capture-record.js';
import { conversationKey } from './conversation-key.js';
import { conversationSessions } from './conversation-sessions.js';
import { type Conversation, createConversationTracker } from './conversation-tracker.js';
import { createPlanModels } from './judge-exchange.js';
import { createJudgeQueue } from './judge-queue.js';
import type { ProxyKeepWarmOptions } from './keep-warm-options.js';
import { checkKeepWarmUpstream, createKeepWarmStage } from './keep-warm-stage.js';
import type { KeepWarmStats } from './keep-warm-stats.js';
import { noteSharedPrefix } from './kept-body.js';
import { keyFieldsReader } from './key-fields.js';
import type { PlanOptions } from './plan-cache-fields.js';
import { planRequest } from './plan-request.js';
import { planSpansReader } from './plan-spans.js';
import { parseJsonRecord } from './receive-request.js';
import { createExchangeRecorder } from './record-exchange.js';
import { opensTurn } from './turn-start.js';
import { resolveUpstream, upstreamUrl, type WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;

export interface ProxyOptions {
  /** `anthropic`, `openai`, `openrouter` or an http(s) base URL (a path is kept as a prefix). */
  upstream: string;
  /** Wire format of `…/chat/completions` bodies [openrouter when the upstream is OpenRouter, else openai-chat]. */
  chatProvider?: ProviderId;
  /** `true` or plan options: rewrite cache fields (never content) with Cachet's plan. */
  plan?: boolean | PlanOptions;
  /** Where `session.started`, `usage.recorded` and `cache.break` go (record them with `recordEvents`). */
  bus?: EventBus;
  /** Called with each completed exchange (a capture line); never with headers. */
  capture?: (record: CaptureRecord) => void;
  /** Largest request body forwarded [32 MiB]; larger ones get 413 in the provider's shape. */
  maxBodyBytes?: number;
  /** Time allowed until the upstream's response headers [600,000 ms]; then 504. */
  timeoutMs?: number;
  /**
   * The fetch used for the upstream (tests inject one) [none: `startProxy` sends with node:http
   * and a keep-alive agent; the Hono `app` with globalThis.fetch].
   */
  fetch?: typeof fetch;
  /** The proxy's clock [Date.now]. */
  now?: () => number;
  /** Conversations remembered at once [10,000]. */
  maxConversations?: number;
  /**
   * Bytes of previous request bodies remembered for the break detector (and, under `--plan`,
   * of the client's last body with its parsed history, charged twice), all conversations
   * together [256 MiB]; the least recently active conversations are forgotten beyond it.
   */
  maxConversationBytes?: number;
  /**
   * Bytes charged to the `--plan` savings models, all conversations together [256 MiB]; each
   * conversation is charged four times its last body (two models: their measured heap, see
   * `PLAN_MODEL_BYTES_PER_BODY_BYTE`).
   */
  maxPlanModelBytes?: number;
  /**
   * This proxy's name in session ids (`<conversation>@<provider>-<instance>`) [6 random hex
   * digits per proxy]: two proxies writing one trace store never share a session. Give a fixed
   * name to keep session ids across restarts (only one proxy at a time may then use it).
   */
  instance?: string;
  /**
   * Answer only requests whose `Host` names this machine (127.0.0.1, localhost, [::1]) [true]:
   * a web page whose domain was rebound to 127.0.0.1 gets 403. `startProxy` turns it off only
   * for a non-loopback binding the operator allowed.
   */
  hostGuard?: boolean;
  /** A note for the operator (a body `--plan` forwarded unchanged); also published as `warning.raised`. */
  onWarning?: (message: string) => void;
  /** A failure while recording an exchange (the client's reply is never affected). */
  onRecordError?: (error: unknown) => void;
  /**
   * Exchanges waiting to be judged (plan savings, break detector) [64]; beyond it exchanges are
   * still recorded, unjudged, with a `warning.raised` once per burst. Traffic is never held.
   */
  judgeQueue?: number;
  /**
   * `--keep-warm[=budget]` [off]: pre-warm requests, sent with the client's own credentials (held
   * in memory only), for Anthropic conversations while `planKeepWarm` says they pay, within a
   * global and a per-conversation budget. Each one is published as `cache.keepalive`.
   */
  keepWarm?: ProxyKeepWarmOptions;
}

export interface ProxyStats {
  conversations: number;
  /** Bytes of previous bodies held for the break detector. */
  conversationBytes: number;
  /** Bytes charged to the plan-savings models. */
  planModelBytes: number;
  evictions: { conversations: number; planModels: number };
  judgingDropped: number;
  /** Pings sent, failed, what they cost and what they saved (only under `keepWarm`). */
  keepWarm?: KeepWarmStats;
}

/** A proxied request as the core sees it, whatever HTTP front end received it. */
export interface ClientRequestInfo {
  route: WireRoute;
  /** The client's body (never null on a wire route with a body). */
  bytes: Uint8Array;
  pathAndQuery: string;
  conversationHeader: string | null;
  userAgent: string | null;
  /** The client's headers, asked for only when keep-warm needs its credentials. */
  headers: () => Headers;
  /** Called once the core reads `bytes` no more (a lent body's memory is then reused: `BodyLease`). */
  release?: () => void;
}

/** One exchange in flight: what to send, and what to do with the reply's summary. */
export interface ExchangeInFlight {
  /** The bytes to forward: the client's, or the plan's splice of them (in pieces: see `BodyPieces`). */
  sent: OutgoingBody;
  /** The reply was read: record it (in the judge queue, off the request path) when complete. */
  finish(summary: StreamSummary | null, status: number): void;
}

export interface ProxyCore {
  base: URL;
  now: () => number;
  maxBodyBytes: number;
  timeoutMs: number;
  hostGuard: boolean;
  /** Plan (under `--plan`) and open the record of one request on a wire route. */
  begin(request: ClientRequestInfo): ExchangeInFlight;
  /** Follow a piece of work (an observer) so `settled()` waits for it; errors go to `onRecordError`. */
  track(work: Promise<void>): void;
  settled(): Promise<void>;
  conversations(): number;
  judgingDropped(): number;
  stats(): ProxyStats;
  stopKeepWarm(): void;
}

const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 600_000;
/** Session of proxy warnings that belong to no conversation (a body too deep to identify). */
const UNPLANNED_SESSION = 'cachet-proxy';

/**
 * What every proxy front end shares: the plan stage, the conversation tracker, the judge queue
 * and the record stage (events, capture, break detector, keep-warm), and the byte budgets.
 * The HTTP side (receiving, forwarding, replying) belongs to the front end.
 */
export function createProxyCore(options: ProxyOptions): ProxyCore {
  const base = resolveUpstream(options.upstream);
  const now = options.now ?? Date.now;
  const instance = options.instance ?? randomBytes(3).toString('hex');
  const plan = options.plan === true ? {} : options.plan || null;
  // One for every conversation: a body's scan resumes past what its conversation's last body shared.
  const planSpans = planSpansReader();
  const chatProvider = options.chatProvider ?? (base.hostname.endsWith('openrouter.ai') ? 'openrouter' : 'openai-chat');
  // One counter per rule set for every conversation's detector and plan models (their memos are shared).
  const counters = { anthropic: anthropicEstimator(), openai: openAICounterOrEstimate() };
  const tracker = createConversationTracker(options.bus, counters, {
    ...(options.maxConversations === undefined ? {} : { maxConversations: options.maxConversations }),
    ...(options.maxConversationBytes === undefined ? {} : { maxBytes: options.maxConversationBytes }),
  });
  const planModels = createPlanModels(counters, options.maxPlanModelBytes);
  const inFlight = new Set<Promise<void>>();
  const keyFields = keyFieldsReader();
  const judgeQueue = createJudgeQueue({
    ...(options.judgeQueue === undefined ? {} : { limit: options.judgeQueue }),
    ...(options.onRecordError ? { onError: options.onRecordError } : {}),
  });
  const providerOf = (route: WireRoute): ProviderId =>
    route === 'anthropic' ? 'anthropic' : route === 'openai-responses' ? 'openai-responses' : chatProvider;
  const sessions = conversationSessions(tracker, instance, providerOf);
  const conversationOf = sessions.conversationOf;
  const record = createExchangeRecorder({
    bus: options.bus,
    capture: options.capture,
    tracker,
    planModels,
    planSavings: plan !== null && plan.savings !== false,
    planTtl: plan?.ttl ?? '5m',
    pending: () => judgeQueue.pending,
  });
  if (options.keepWarm) checkKeepWarmUpstream(options.upstream, options.keepWarm);
  const fetchUpstream = options.fetch ?? globalThis.fetch;
  const wholeBodyNeeded = options.capture !== undefined || options.keepWarm !== undefined;
  // Under --keep-warm, the client requests in flight: a ping due meanwhile is not sent (the client is back).
  const inFlightRequests = options.keepWarm ? new Set<InFlightRequest>() : null;
  const clientBusy = (sessionId: string): boolean => {
    for (const request of inFlightRequests ?? []) {
      // Read for its conversation only now, when a ping is due (rare), never on the request path.
      request.sessionId ??= sessionIdOfBytes(request, sessions.sessionIdOf, providerOf);
      if (request.sessionId === sessionId) return true;
    }
    return false;
  };
  const keepWarm = options.keepWarm
    ? createKeepWarmStage({
        options: options.keepWarm,
        clientBusy,
        fetchUpstream,
        upstreamUrl: (path) => upstreamUrl(base, path),
        now,
        bus: options.bus,
      })
    : null;

  /** A body `--plan` could not edit safely goes out as it came; the trace says why. */
  const warnUnplanned = (reason: string, route: WireRoute, body: JsonRecord | null, header: string | null, at: number) => {
    let sessionId = UNPLANNED_SESSION;
    try {
      if (body) sessionId = sessions.sessionIdOf(conversationKey(route, body, header).id, providerOf(route));
    } catch {
      // A body too deep to hash: the warning goes to the proxy's own session.
    }
    options.bus?.emit('warning.raised', sessionId, at, { source: 'proxy.plan', message: `${reason}: forwarded unchanged` });
    options.onWarning?.(`cachet proxy --plan: ${reason}: forwarded unchanged`);
  };

  const begin = (request: ClientRequestInfo): ExchangeInFlight => {
    const { route, bytes, conversationHeader } = request;
    const release = request.release ?? (() => {});
    const at = now();
    const started = performance.now();
    // Without --plan the body is forwarded before it is even parsed: reading it costs the client nothing.
    let clientBody: JsonRecord | null = null;
    let conversation: Conversation | null = null;
    let sent: OutgoingBody = bytes;
    let sentBody: JsonRecord | null = null;
    let plannedBreakpoints: string[] = [];
    if (plan) {
      const planned = planRequest(route, bytes, plan, (body) => conversationOf(route, body, conversationHeader), planSpans);
      if (planned.kind === 'planned') {
        ({ clientBody, conversation, sentBody } = planned);
        plannedBreakpoints = planned.breakpoints;
        sent = planned.sent;
        tracker.keepHistory(planned.conversation, planned.history);
        // What is sent and kept refers to the tracker's copy, never a lent body: its memory goes back to the pool now.
        release();
        if (planned.volatileMoved) options.bus?.emit('volatile.moved', planned.conversation.id, at, planned.volatileMoved);
      } else if (planned.reason) {
        warnUnplanned(planned.reason, route, planned.clientBody, conversationHeader, at);
      }
    }
    const inFlight: InFlightRequest | null = inFlightRequests
      ? { sessionId: conversation?.id ?? null, route, bytes, header: conversationHeader }
      : null;
    if (inFlight) inFlightRequests!.add(inFlight);
    const finish = (summary: StreamSummary | null, status: number) => {
      if (inFlight) inFlightRequests!.delete(inFlight);
      if (!summary?.complete || !summary.usage) return release();
      const durationMs = performance.now() - started;
      judgeQueue.push((judge, firstDropped) => {
        try {
          recordTask(judge, firstDropped, summary, status, durationMs);
        } finally {
          release();
        }
      });
    };
    const recordTask = (judge: boolean, firstDropped: boolean, summary: StreamSummary, status: number, durationMs: number) => {
      // Pass-through without capture or keep-warm reads only the model and the key: no whole-body parse.
      const fields = clientBody || wholeBodyNeeded ? null : keyFields.read(bytes);
      // The tracker keeps the body sharing its last one's memory: what the read compared is not compared again.
      if (fields) noteSharedPrefix(bytes, keyFields.lastShared);
      if (!fields) clientBody ??= parseJsonRecord(bytes);
      const keyBody = clientBody ?? fields?.keyBody;
      if (!keyBody) return;
      conversation ??= conversationOf(route, keyBody, conversationHeader);
      const sentModel = (sentBody ?? clientBody)?.model;
      record(conversation, {
        at,
        clientBody,
        sentBody: sentBody ?? clientBody,
        model: fields ? fields.model : typeof sentModel === 'string' ? sentModel : '',
        opensTurn: fields ? fields.opensTurn : opensTurn(keyBody),
        sentBytes: sent,
        planned: sentBody !== null,
        plannedBreakpoints,
        summary,
        status,
        durationMs,
        judge,
        firstDropped,
        client: clientProduct(request.userAgent),
      });
      // The tracker now keeps its own copy of a lent body: the key-field memo refers to that copy.
      if (fields && conversation.previous) keyFields.kept(bytes, conversation.previous.bytes);
      if (!clientBody) return;
      keepWarm?.observe({
        sessionId: conversation.id,
        route,
        path: request.pathAndQuery,
        headers: request.headers(),
        body: sentBody ?? clientBody,
        usage: summary.usage!,
        at,
      });
    };
    return { sent, finish };
  };

  return {
    base,
    now,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    hostGuard: options.hostGuard ?? true,
    begin,
    track(work) {
      const done = work.catch((error: unknown) => options.onRecordError?.(error));
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    },
    settled: async () => {
      while (inFlight.size > 0 || judgeQueue.pending > 0) {
        await Promise.allSettled([...inFlight]);
        await judgeQueue.idle();
      }
      await keepWarm?.settled();
    },
    stopKeepWarm: () => keepWarm?.stop(),
    conversations: () => tracker.size,
    judgingDropped: () => judgeQueue.dropped,
    stats: () => ({
      conversations: tracker.size,
      conversationBytes: tracker.bytes,
      planModelBytes: planModels.bytes,
      evictions: { conversations: tracker.evictions, planModels: planModels.evictions },
      judgingDropped: judgeQueue.dropped,
      ...(keepWarm ? { keepWarm: keepWarm.stats() } : {}),
    }),
  };
}

/** `claude-cli/2.1.3 (external, cli)` -> `claude-cli/2.1.3`: the product token names the client without its details. */
export function clientProduct(userAgent: string | null): string | null {
  const product = userAgent?.trim().split(/\s+/)[0]?.slice(0, 80);
  return product ? product : null;
}

/** A client request between its arrival and its end (`ExchangeInFlight.finish`), for `--keep-warm`. */
interface InFlightRequest {
  /** Its session, once known (at once under `--plan`; else read from `bytes` when a ping asks). */
  sessionId: string | null;
  route: WireRoute;
  /** The client's bytes: valid until the exchange finishes (a lent body is held until then). */
  bytes: Uint8Array;
  header: string | null;
}

function sessionIdOfBytes(
  request: InFlightRequest,
  sessionIdOf: (key: string, provider: ProviderId) => string,
  providerOf: (route: WireRoute) => ProviderId,
): string {
  try {
    const body = parseJsonRecord(request.bytes);
    return body ? sessionIdOf(conversationKey(request.route, body, request.header).id, providerOf(request.route)) : '';
  } catch {
    return '';
  }
}
