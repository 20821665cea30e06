import type { HttpApp } from '../../server/http-app.js';
import { honoCore } from '../../server/http-peers.js';
import type { NodeOutgoing } from '../client-stream.js';
import { isLoopbackHostHeader } from '../listen-policy.js';
import { joinedBody } from './body-pieces.js';
import { CONVERSATION_HEADER } from './conversation-key.js';
import { forwardRequest } from './forward-request.js';
import { FORBIDDEN_HOST_MESSAGE } from './node-front.js';
import { replyAndObserve } from './observe-reply.js';
import { createProxyCore, type ProxyOptions, type ProxyStats } from './proxy-core.js';
import { proxyErrorResponse } from './proxy-errors.js';
import { clientResponseHeaders } from './proxy-headers.js';
import { readLimited } from './receive-request.js';
import { upstreamUrl, wireRouteOf } from './wire-route.js';

export { clientProduct, type ProxyOptions, type ProxyStats } from './proxy-core.js';

export interface ProxyApp {
  app: HttpApp;
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

/**
 * The proxy as a Hono app, to mount in another server (`startProxy` serves the same stages with
 * node:http, which costs less per request). Every request is forwarded to the upstream with its
 * body untouched (unless `plan` rewrites cache fields) and its reply returned as it arrives; a
 * `tee()` of the reply is read with the provider's stream reader, and only a complete exchange is
 * recorded (events and capture). API keys are forwarded and never read, stored or logged.
 *
 * @example
 * const bus = new EventBus();
 * recordEvents(bus, store);
 * const { app } = createProxyApp({ upstream: 'anthropic', bus });
 * serve({ fetch: app.fetch, port: 8787 });
 */
export function createProxyApp(options: ProxyOptions): ProxyApp {
  const core = createProxyCore(options);
  const fetchUpstream = options.fetch ?? globalThis.fetch;
  const { Hono: HonoApp } = honoCore('the proxy (createProxyApp)');
  const app = new HonoApp();

  app.all('*', async (context) => {
    const request = context.req.raw;
    const url = new URL(request.url);
    const route = wireRouteOf(request.method, url.pathname);
    if (core.hostGuard && !isLoopbackHostHeader(request.headers.get('host') ?? url.host)) {
      return proxyErrorResponse(route, 'forbidden-host', FORBIDDEN_HOST_MESSAGE);
    }
    let bytes: Uint8Array<ArrayBuffer> | null = null;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      bytes = await readLimited(request, core.maxBodyBytes);
      if (bytes === null) {
        return proxyErrorResponse(route, 'body-too-large', `the request body exceeds ${core.maxBodyBytes} bytes`);
      }
    }
    const exchange =
      route && bytes
        ? core.begin({
            route,
            bytes,
            pathAndQuery: url.pathname + url.search,
            conversationHeader: request.headers.get(CONVERSATION_HEADER),
            userAgent: request.headers.get('user-agent'),
            headers: () => request.headers,
          })
        : null;
    const forwarded = await forwardRequest({
      fetchUpstream,
      url: upstreamUrl(core.base, url.pathname + url.search),
      request,
      body: exchange ? joinedBody(exchange.sent) : bytes,
      route,
      timeoutMs: core.timeoutMs,
    });
    if ('failed' in forwarded) return forwarded.failed;
    const { upstream, release } = forwarded;
    const headers = clientResponseHeaders(upstream.headers);
    if (!route || !exchange || !upstream.ok || !upstream.body) {
      release();
      return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers });
    }
    return replyAndObserve({
      upstream,
      headers,
      route,
      clientSignal: request.signal,
      release,
      outgoing: (context.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing,
      onWarning: options.onWarning,
      track: core.track,
      onSummary: (summary) => {
        release();
        exchange.finish(summary, upstream.status);
      },
    });
  });

  return {
    app,
    settled: core.settled,
    stopKeepWarm: core.stopKeepWarm,
    conversations: core.conversations,
    judgingDropped: core.judgingDropped,
    stats: core.stats,
  };
}
