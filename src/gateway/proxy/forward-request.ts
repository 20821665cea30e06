import { causeLine } from '../client-stream.js';
import { proxyErrorResponse } from './proxy-errors.js';
import { upstreamRequestHeaders } from './proxy-headers.js';
import type { WireRoute } from './wire-route.js';

export type Forwarded =
  | {
      upstream: Response;
      /** Stop relaying the client's disconnect to the upstream (call once the exchange is over). */
      release(): void;
    }
  | { failed: Response };

/**
 * The proxy's forward stage: send the body upstream with the client's headers (minus Cachet's
 * own and hop-by-hop ones). A client that leaves aborts the upstream request; no response
 * headers within `timeoutMs` → 504; an unreachable upstream → 502, both in the provider's shape.
 */
export async function forwardRequest(input: {
  fetchUpstream: typeof fetch;
  url: string;
  request: Request;
  body: Uint8Array | null;
  route: WireRoute | null;
  timeoutMs: number;
}): Promise<Forwarded> {
  const { request, route, timeoutMs } = input;
  const controller = new AbortController();
  const abortFromClient = () => controller.abort(new DOMException('the client went away', 'AbortError'));
  request.signal.addEventListener('abort', abortFromClient, { once: true });
  const release = () => request.signal.removeEventListener('abort', abortFromClient);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('upstream timeout', 'TimeoutError'));
  }, timeoutMs);
  try {
    const upstream = await input.fetchUpstream(input.url, {
      method: request.method,
      headers: upstreamRequestHeaders(request.headers),
      ...(input.body ? { body: input.body as Uint8Array<ArrayBuffer> } : {}),
      signal: controller.signal,
      redirect: 'manual',
    });
    return { upstream, release };
  } catch (error) {
    release();
    if (timedOut) {
      return { failed: proxyErrorResponse(route, 'upstream-timeout', `the upstream sent no response within ${timeoutMs} ms`) };
    }
    if (request.signal.aborted) return { failed: new Response(null, { status: 499 }) };
    return {
      failed: proxyErrorResponse(route, 'upstream-unreachable', `the upstream could not be reached (${causeLine(error)})`),
    };
  } finally {
    clearTimeout(timer);
  }
}
