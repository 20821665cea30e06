import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { costOf, uncachedCostOf } from '../../cache/cost.js';
import type { CacheModel } from '../../cache/models/cache-verdict.js';
import { type CacheModelOptions, createCacheModel } from '../../cache/models/create-cache-model.js';
import type { ModelledRequestCost, ProxyForwardedPayload } from '../../events/catalog.js';
import type { EventBus } from '../../events/event-bus.js';
import { totalInputTokens, type Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/adapter.js';
import { readAnthropicReply } from '../../providers/anthropic/parse-stream.js';
import { readOpenAIChatReply } from '../../providers/openai-chat/parse-stream.js';
import { readOpenAIResponsesReply } from '../../providers/openai-responses/parse-stream.js';
import { providerEntry } from '../../providers/registry.js';
import type { StreamReader, StreamSummary } from '../../providers/shared/stream-summary.js';
import { honoCore } from '../../server/http-peers.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import { causeLine, guardClientStream } from '../client-stream.js';
import { isLoopbackHostHeader } from '../listen-policy.js';
import type { CaptureRecord } from './capture-record.js';
import { conversationKey } from './conversation-key.js';
import {
  type Conversation,
  type ConversationTracker,
  createConversationTracker,
  type TrackerCounters,
} from './conversation-tracker.js';
import { createJudgeQueue } from './judge-queue.js';
import type { PlanOptions } from './plan-cache-fields.js';
import { planRequest } from './plan-request.js';
import { proxyErrorResponse } from './proxy-errors.js';
import { CONVERSATION_HEADER, clientResponseHeaders, upstreamRequestHeaders } from './proxy-headers.js';
import { resolveUpstream, upstreamUrl, type WireRoute, wireRouteOf } from './wire-route.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

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
}

export interface ProxyStats {
  conversations: number;
  /** Bytes of previous bodies held for the break detector. */
  conversationBytes: number;
  /** Bytes charged to the plan-savings models. */
  planModelBytes: number;
  evictions: { conversations: number; planModels: number };
  judgingDropped: number;
}

const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 600_000;
const decoder = new TextDecoder();
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
  const { Hono: HonoApp } = honoCore('the proxy (createProxyApp)');
  const app = new HonoApp();

  const providerOf = (route: WireRoute): ProviderId =>
    route === 'anthropic' ? 'anthropic' : route === 'openai-responses' ? 'openai-responses' : chatProvider;

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
      } else if (planned.reason) {
        warnUnplanned(planned.reason, route, planned.clientBody, conversationHeader, at);
      }
    }

    const controller = new AbortController();
    const abortFromClient = () => controller.abort(new DOMException('the client went away', 'AbortError'));
    request.signal.addEventListener('abort', abortFromClient, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('upstream timeout', 'TimeoutError'));
    }, timeoutMs);
    let upstream: Response;
    try {
      upstream = await fetchUpstream(upstreamUrl(base, url.pathname + url.search), {
        method: request.method,
        headers: upstreamRequestHeaders(request.headers),
        ...(sent ? { body: sent as Uint8Array<ArrayBuffer> } : {}),
        signal: controller.signal,
        redirect: 'manual',
      });
    } catch (error) {
      request.signal.removeEventListener('abort', abortFromClient);
      if (timedOut) return proxyErrorResponse(route, 'upstream-timeout', `the upstream sent no response within ${timeoutMs} ms`);
      if (request.signal.aborted) return new Response(null, { status: 499 });
      return proxyErrorResponse(route, 'upstream-unreachable', `the upstream could not be reached (${causeLine(error)})`);
    } finally {
      clearTimeout(timer);
    }
    const headers = clientResponseHeaders(upstream.headers);
    if (!route || !bytes || !upstream.ok || !upstream.body) {
      request.signal.removeEventListener('abort', abortFromClient);
      return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers });
    }
    const streamed = (upstream.headers.get('content-type') ?? '').includes('text/event-stream');
    const reader = READERS[route](streamed);
    const status = upstream.status;
    const recordWhenRead = (summary: StreamSummary | null) => {
      request.signal.removeEventListener('abort', abortFromClient);
      if (!summary?.complete || !summary.usage) return;
      const durationMs = performance.now() - started;
      judgeQueue.push((judge, firstDropped) => {
        clientBody ??= parseJson(bytes);
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
        });
      });
    };
    const track = (work: Promise<void>) => {
      const done = work.catch((error: unknown) => options.onRecordError?.(error));
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    };
    if (!streamed) {
      // A JSON reply is useless to the client until complete: read it once, answer with the same
      // bytes, then record (a tee would add stream plumbing for nothing).
      let replyBytes: Uint8Array<ArrayBuffer>;
      try {
        replyBytes = new Uint8Array(await upstream.arrayBuffer());
      } catch (error) {
        request.signal.removeEventListener('abort', abortFromClient);
        if (request.signal.aborted) return new Response(null, { status: 499 });
        return proxyErrorResponse(route, 'bad-upstream', `the upstream reply broke off (${causeLine(error)})`);
      }
      track(
        (async () => {
          await new Promise((resolve) => setImmediate(resolve));
          reader.push(decoder.decode(replyBytes));
          recordWhenRead(reader.finish());
        })(),
      );
      return new Response(replyBytes, { status, statusText: upstream.statusText, headers });
    }
    const [toClient, toObserver] = upstream.body.tee();
    // Recording waits a turn of the event loop so the reply's last bytes reach the client first.
    track(
      observe(toObserver, reader).then(async (summary) => {
        await new Promise((resolve) => setImmediate(resolve));
        recordWhenRead(summary);
      }),
    );
    const onBreak = (error: unknown, bytesSent: number) =>
      options.onWarning?.(
        `cachet proxy: the upstream's reply broke off after ${bytesSent} bytes (${causeLine(error)}); the client's connection was closed`,
      );
    const outgoing = (context.env as { outgoing?: { destroy(error?: Error): void } } | undefined)?.outgoing;
    return new Response(guardClientStream(toClient, onBreak, outgoing), {
      status,
      statusText: upstream.statusText,
      headers,
    });
  });

  /** A body `--plan` could not edit safely goes out as it came; the trace says why. */
  function warnUnplanned(reason: string, route: WireRoute, body: JsonRecord | null, header: string | null, at: number): void {
    let sessionId = UNPLANNED_SESSION;
    try {
      if (body) sessionId = sessionIdOf(conversationKey(route, body, header).id, providerOf(route));
    } catch {
      // A body too deep to hash: the warning goes to the proxy's own session.
    }
    options.bus?.emit('warning.raised', sessionId, at, { source: 'proxy.plan', message: `${reason}: forwarded unchanged` });
    options.onWarning?.(`cachet proxy --plan: ${reason}: forwarded unchanged`);
  }

  /** A conversation's session: its key, its provider (clients of two APIs never share one) and this proxy. */
  function sessionIdOf(key: string, provider: ProviderId): string {
    return `${key}@${provider}-${instance}`;
  }

  function conversationOf(route: WireRoute, body: JsonRecord, header: string | null): Conversation {
    const key = conversationKey(route, body, header).id;
    const provider = providerOf(route);
    return tracker.get(sessionIdOf(key, provider), provider, key);
  }

  function record(
    conversation: Conversation,
    exchange: {
      at: number;
      clientBody: JsonRecord;
      sentBody: JsonRecord;
      sentBytes: Uint8Array;
      planned: boolean;
      plannedBreakpoints: string[];
      summary: StreamSummary;
      status: number;
      durationMs: number;
      /** False when the judge queue was full: recorded, not judged. */
      judge: boolean;
      firstDropped: boolean;
    },
  ): void {
    const usage = exchange.summary.usage!;
    const model = typeof exchange.sentBody.model === 'string' ? exchange.sentBody.model : '';
    const turn = conversation.recorded++;
    const durationMs = Math.round(exchange.durationMs * 10) / 10;
    conversation.lastResponseId = exchange.summary.responseId;
    const bus = options.bus;
    if (bus) {
      if (turn === 0) {
        bus.emit('session.started', conversation.id, exchange.at, {
          model,
          provider: conversation.provider,
          strategy: exchange.planned ? 'proxy-plan' : 'proxy',
          globalPrefixHash: '',
          sessionPrefixHash: conversation.id,
        });
      }
      bus.emit('proxy.forwarded', conversation.id, exchange.at, {
        turn,
        step: 0,
        provider: conversation.provider,
        model,
        mode: exchange.planned ? 'plan' : 'pass-through',
        status: exchange.status,
        durationMs,
        responseId: exchange.summary.responseId,
        plannedBreakpoints: exchange.plannedBreakpoints,
        plan:
          exchange.judge && exchange.planned && plan?.savings !== false
            ? comparePlan(planModels.of(conversation, exchange.sentBytes.byteLength), exchange, conversation.provider, model)
            : null,
      });
      bus.emit('usage.recorded', conversation.id, exchange.at, {
        turn,
        step: 0,
        model,
        usage,
        costUsd: costOf(usage, conversation.provider, model).costUsd,
        uncachedCostUsd: uncachedCostOf(usage, conversation.provider, model).costUsd,
      });
      if (exchange.firstDropped) {
        bus.emit('warning.raised', conversation.id, exchange.at, {
          source: 'proxy.judge',
          message: `judging skipped: ${judgeQueue.pending} exchanges were waiting to be recorded (judge queue full); traffic is unaffected`,
        });
      }
    }
    judgeMiss(tracker, conversation, exchange, usage, model, turn);
    options.capture?.({
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

  return {
    app,
    settled: async () => {
      while (inFlight.size > 0 || judgeQueue.pending > 0) {
        await Promise.allSettled([...inFlight]);
        await judgeQueue.idle();
      }
    },
    conversations: () => tracker.size,
    judgingDropped: () => judgeQueue.dropped,
    stats: () => ({
      conversations: tracker.size,
      conversationBytes: tracker.bytes,
      planModelBytes: planModels.bytes,
      evictions: { conversations: tracker.evictions, planModels: planModels.evictions },
      judgingDropped: judgeQueue.dropped,
    }),
  };
}

/** Bytes charged to the plan-savings models by default, all conversations together. */
export const DEFAULT_PLAN_MODEL_BYTES = 256 * 1024 * 1024;

interface PlanModels {
  /**
   * The conversation's two models (client's bodies, planned bodies), most recently used kept;
   * `bodyBytes` is its current body's size, charged twice against the budget.
   */
  of(conversation: Conversation, bodyBytes: number): { client: CacheModel; planned: CacheModel };
  readonly bytes: number;
  readonly evictions: number;
}

/**
 * Each conversation keeps two cache models holding about one normalized copy of its last body
 * each; beyond the byte budget the least recently judged conversations' models are dropped (a
 * conversation judged again after that starts both models cold, so the comparison stays fair).
 */
function createPlanModels(trackerCounters: TrackerCounters, maxBytes = DEFAULT_PLAN_MODEL_BYTES): PlanModels {
  const counters: CacheModelOptions = {
    anthropic: { counter: trackerCounters.anthropic },
    openai: { counter: trackerCounters.openai },
  };
  const byConversation = new Map<string, { client: CacheModel; planned: CacheModel; charged: number }>();
  let bytes = 0;
  let evictions = 0;
  return {
    of(conversation, bodyBytes) {
      let models = byConversation.get(conversation.id);
      if (models) {
        byConversation.delete(conversation.id);
        bytes -= models.charged;
      } else {
        models = {
          client: createCacheModel(conversation.provider, counters),
          planned: createCacheModel(conversation.provider, counters),
          charged: 0,
        };
      }
      models.charged = 2 * bodyBytes;
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

/**
 * What the client's own body would have read and cost, against the planned body, each judged by
 * the conversation's own cache model (the upstream only ever sees the planned one). Null when a
 * body cannot be judged (a shape the model refuses): the exchange is still recorded.
 */
function comparePlan(
  models: { client: CacheModel; planned: CacheModel },
  exchange: { clientBody: JsonRecord; sentBody: JsonRecord; at: number },
  provider: ProviderId,
  model: string,
): ProxyForwardedPayload['plan'] {
  const at = exchange.at;
  const judged = (cacheModel: CacheModel, body: JsonRecord): ModelledRequestCost | null => {
    try {
      const verdict = cacheModel.judge(body, { at });
      return {
        inputTokens: verdict.inputTokens,
        cacheReadTokens: verdict.cacheReadTokens,
        cacheWriteTokens: verdict.cacheWriteTokens,
        costUsd: costOf(verdict.usage, provider, model).costUsd,
      };
    } catch {
      return null;
    }
  };
  const client = judged(models.client, exchange.clientBody);
  const planned = judged(models.planned, exchange.sentBody);
  if (!client || !planned) return null;
  return { client, planned, savedUsd: client.costUsd - planned.costUsd };
}

/** Shortfalls smaller than this are rounding (OpenAI reads in 128-token steps), not misses. */
const OPENAI_READ_SLACK = 256;

/**
 * Judge a request with the break detector only when it read less than the previous request
 * left cached (or the provider names a miss): comparing two 50 KB bodies costs about a
 * millisecond, and most requests of a healthy conversation read everything. The detector then
 * publishes `cache.break` with Cachet's cause and the server's.
 */
function judgeMiss(
  tracker: ConversationTracker,
  conversation: Conversation,
  exchange: { sentBytes: Uint8Array; at: number; judge: boolean },
  usage: Usage,
  model: string,
  turn: number,
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
  const previousBody = parseJson(previous.bytes);
  const body = parseJson(exchange.sentBytes);
  if (!previousBody || !body) return;
  conversation.detector.reset();
  conversation.detector.observe(previousBody, { at: previous.at });
  conversation.detector.observe(body, { at: exchange.at, usage, turn, step: 0 });
  // The detector is only asked about this pair: holding its copies until the next miss would double the budget.
  conversation.detector.reset();
}

/** The stream reader of each wire route's replies (`streamed`: SSE, else one JSON body). */
const READERS: Record<WireRoute, (streamed: boolean) => StreamReader> = {
  anthropic: readAnthropicReply,
  'openai-chat': readOpenAIChatReply,
  'openai-responses': readOpenAIResponsesReply,
};

/** Read the observer's branch to the end; null when it broke off (upstream error, client gone). */
async function observe(stream: ReadableStream<Uint8Array>, reader: StreamReader): Promise<StreamSummary | null> {
  const textDecoder = new TextDecoder();
  const source = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await source.read();
      if (done) break;
      reader.push(textDecoder.decode(value, { stream: true }));
    }
  } catch {
    return null;
  }
  reader.push(textDecoder.decode());
  return reader.finish();
}

/** The body up to `limit` bytes, or null when it is larger (read no further). */
async function readLimited(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return null;
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function parseJson(bytes: Uint8Array): JsonRecord | null {
  try {
    const parsed: unknown = JSON.parse(decoder.decode(bytes));
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
