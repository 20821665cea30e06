import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import type { EventBus } from '../../events/event-bus.js';
import type { ProviderId } from '../../providers/adapter.js';
import type { StreamSummary } from '../../providers/shared/stream-summary.js';
import { honoCore } from '../../server/http-peers.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import type { NodeOutgoing } from '../client-stream.js';
import { isLoopbackHostHeader } from '../listen-policy.js';
import type { CaptureRecord } from './capture-record.js';
import { conversationKey } from './conversation-key.js';
import { conversationSessions } from './conversation-sessions.js';
import { type Conversation, createConversationTracker } from './conversation-tracker.js';
import { forwardRequest } from './forward-request.js';
import { createPlanModels } from './judge-exchange.js';
import { createJudgeQueue } from './judge-queue.js';
import { checkKeepWarmUpstream, createKeepWarmStage, type KeepWarmStats, type ProxyKeepWarmOptions } from './keep-warm-stage.js';
import { replyAndObserve } from './observe-reply.js';
import type { PlanOptions } from './plan-cache-fields.js';
import { planRequest } from './plan-request.js';
import { proxyErrorResponse } from './proxy-errors.js';
import { CONVERSATION_HEADER, clientResponseHeaders } from './proxy-headers.js';
import { parseJsonRecord, readLimited } from './receive-request.js';
import { createExchangeRecorder } from './record-exchange.js';
import { resolveUpstream, upstreamUrl, type WireRoute, wireRouteOf } from './wire-route.js';

type JsonRecord = Record<string, unknown>;
const _isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

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
  /** The fetch used for the upstream (tests inject one) [globalThis.fetch]. */
  fetch?: typeof fetch;
  /** The proxy's clock [Date.now]. */
  now?: () => number;
  /** Conversations remembered at once [10,000]. */
  maxConversations?: number;
  /**
   * Bytes of previous request bodies remembered for the break detector, all conversations
   * together [256 MiB]; the least recently active conversations are forgotten beyond it.
   */
  maxConversationBytes?: number;
  /**
   * Bytes charged to the `--plan` savings models, all conversations together [256 MiB]; each
   * conversation is charged twice its last body (two models, each holding one normalized copy).
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

export interface ProxyApp {
  app: Hono;
  /** Resolves when every exchange in flight has been recorded or dropped. */
  settled(): Promise<void>;
  /** Conversations currently remembered. */
  conversations(): number;
  /** Exchanges recorded without judging because the judge queue was full. */
  judgingDropped(): number;
  /** What the proxy holds and what it let go to stay within its budgets. */
  stats(): ProxyStats;
  /** Cancel every scheduled keep-warm ping and forget the credentials held for them. */
  stopKeepWarm(): void;
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

const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 600_000;
const _decoder = new TextDecoder();
const FORBIDDEN_HOST_MESSAGE =
  'this proxy answers only Host: 127.0.0.1, localhost or [::1]; start it with --allow-remote on another interface to serve other names';

/** Session of proxy warnings that belong to no conversation (a body too deep to identify). */
const UNPLANNED_SESSION = 'cachet-proxy';

/**
 * The proxy as a Hono app. Every request is forwarded to the upstream with its body untouched
 * (unless `plan` rewrites cache fields) and its reply returned as it arrives; a `tee()` of the
 * reply is read with the provider's stream reader, and only a complete exchange is recorded
 * (events and capture). API keys are forwarded and never read, stored or logged.
 *
 * @example
 * const bus = new EventBus();
 * recordEvents(bus, store);
 * const { app } = createProxyApp({ upstream: 'anthropic', bus });
 * serve({ fetch: app.fetch, port: 8787 });
 */
export function createProxyApp(options: ProxyOptions): ProxyApp {
  const base = resolveUpstream(options.upstream);
  const fetchUpstream = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const hostGuard = options.hostGuard ?? true;
  const instance = options.instance ?? randomBytes(3).toString('hex');
  const plan = options.plan === true ? {} : options.plan || null;
  const chatProvider = options.chatProvider ?? (base.hostname.endsWith('openrouter.ai') ? 'openrouter' : 'openai-chat');
  // One counter per rule set for every conversation's detector and plan models (their memos are shared).
  const counters = { anthropic: anthropicEstimator(), openai: openAICounterOrEstimate() };
  const tracker = createConversationTracker(options.bus, counters, {
    ...(options.maxConversations === undefined ? {} : { maxConversations: options.maxConversations }),
    ...(options.maxConversationBytes === undefined ? {} : { maxBytes: options.maxConversationBytes }),
  });
  const planModels = createPlanModels(counters, options.maxPlanModelBytes);
  const inFlight = new Set<Promise<void>>();
  const judgeQueue = createJudgeQueue({
    ...(options.judgeQueue === undefined ? {} : { limit: options.judgeQueue }),
    ...(options.onRecordError ? { onError: options.onRecordError } : {}),
  });
  const sessions = conversationSessions(tracker, instance, (route) => providerOf(route));
  const conversationOf = sessions.conversationOf;
  const record = createExchangeRecorder({
    bus: options.bus,
    capture: options.capture,
    tracker,
    planModels,
    planSavings: plan !== null && plan.savings !== false,
    pending: () => judgeQueue.pending,
  });
  if (options.keepWarm) checkKeepWarmUpstream(options.upstream, options.keepWarm);
  const keepWarm = options.keepWarm
    ? createKeepWarmStage({
        options: options.keepWarm,
        fetchUpstream,
        upstreamUrl: (path) => upstreamUrl(base, path),
        now,
        bus: options.bus,
      })
    : null;
  const { Hono: HonoApp } = honoCore('the proxy (createProxyApp)');
  const app = new HonoApp();

  const providerOf = (route: WireRoute): ProviderId =>
    route === 'anthropic' ? 'anthropic' : route === 'openai-responses' ? 'openai-responses' : chatProvider;

  const track = (work: Promise<void>) => {
    const done = work.catch((error: unknown) => options.onRecordError?.(error));
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  };

  app.all('*', async (context) => {
    const request = context.req.raw;
    const url = new URL(request.url);
    const route = wireRouteOf(request.method, url.pathname);
    if (hostGuard && !isLoopbackHostHeader(request.headers.get('host') ?? url.host)) {
      return proxyErrorResponse(route, 'forbidden-host', FORBIDDEN_HOST_MESSAGE);
    }
    let bytes: Uint8Array<ArrayBuffer> | null = null;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      bytes = await readLimited(request, maxBodyBytes);
      if (bytes === null) {
        return proxyErrorResponse(route, 'body-too-large', `the request body exceeds ${maxBodyBytes} bytes`);
      }
    }
    const at = now();
    const started = performance.now();
    const conversationHeader = request.headers.get(CONVERSATION_HEADER);
    // Without --plan the body is forwarded before it is even parsed: reading it costs the client nothing.
    let clientBody: JsonRecord | null = null;
    let conversation: Conversation | null = null;
    let sent: Uint8Array<ArrayBuffer> | null = bytes;
    let sentBody: JsonRecord | null = null;
    let plannedBreakpoints: string[] = [];
    if (plan && route && bytes) {
      const planned = planRequest(route, bytes, plan, (body) => conversationOf(route, body, conversationHeader));
      if (planned.kind === 'planned') {
        ({ clientBody, conversation, sentBody } = planned);
        plannedBreakpoints = planned.breakpoints;
        sent = planned.sent as Uint8Array<ArrayBuffer>;
        if (planned.volatileMoved) options.bus?.emit('volatile.moved', planned.conversation.id, at, planned.volatileMoved);
      } else if (planned.reason) {
        warnUnplanned(planned.reason, route, planned.clientBody, conversationHeader, at);
      }
    }

    const forwarded = await forwardRequest({
      fetchUpstream,
      url: upstreamUrl(base, url.pathname + url.search),
      request,
      body: sent,
      route,
      timeoutMs,
    });
    if ('failed' in forwarded) return forwarded.failed;
    const { upstream, release } = forwarded;
    const headers = clientResponseHeaders(upstream.headers);
    if (!route || !bytes || !upstream.ok || !upstream.body) {
      release();
      return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers });
    }
    const status = upstream.status;
    const recordWhenRead = (summary: StreamSummary | null) => {
      release();
      if (!summary?.complete || !summary.usage) return;
      const durationMs = performance.now() - started;
      judgeQueue.push((judge, firstDropped) => {
        clientBody ??= parseJsonRecord(bytes);
        if (!clientBody) return;
        conversation ??= conversationOf(route, clientBody, conversationHeader);
        record(conversation, {
          at,
          clientBody,
          sentBody: sentBody ?? clientBody,
          sentBytes: sent ?? bytes,
          planned: sentBody !== null,
          plannedBreakpoints,
          summary,
          status,
          durationMs,
          judge,
          firstDropped,
          client: clientProduct(request.headers.get('user-agent')),
        });
        keepWarm?.observe({
          sessionId: conversation.id,
          route,
          path: url.pathname + url.search,
          headers: request.headers,
          body: sentBody ?? clientBody,
          usage: summary.usage!,
          at,
        });
      });
    };
    return replyAndObserve({
      upstream,
      headers,
      route,
      clientSignal: request.signal,
      release,
      outgoing: (context.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing,
      onWarning: options.onWarning,
      track,
      onSummary: recordWhenRead,
    });
  });

  /** A body `--plan` could not edit safely goes out as it came; the trace says why. */
  function warnUnplanned(reason: string, route: WireRoute, body: JsonRecord | null, header: string | null, at: number): void {
    let sessionId = UNPLANNED_SESSION;
    try {
      if (body) sessionId = sessions.sessionIdOf(conversationKey(route, body, header).id, providerOf(route));
    } catch {
      // A body too deep to hash: the warning goes to the proxy's own session.
    }
    options.bus?.emit('warning.raised', sessionId, at, { source: 'proxy.plan', message: `${reason}: forwarded unchanged` });
    options.onWarning?.(`cachet proxy --plan: ${reason}: forwarded unchanged`);
  }

  return {
    app,
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
