import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { joinedBody, type OutgoingBody, ownCopy } from './body-pieces.js';
import { upstreamUrl } from './wire-route.js';

/** One request to the upstream, as the proxy's node front end sends it. */
export interface UpstreamCall {
  method: string;
  /** The client's path and query; the upstream's path prefix is added by the transport. */
  pathAndQuery: string;
  /** Already filtered (`upstreamHeadersOf`): no hop-by-hop headers, no `host`, no `content-length`. */
  headers: OutgoingHttpHeaders;
  /** The client's bytes, or the plan's pieces of them (written as they are, never joined). */
  body: OutgoingBody | null;
  /**
   * The body is lent (`BodyLease.hold`): hold it until it is written or the request is gone;
   * its memory is reused once every holder released it.
   */
  hold?: () => () => void;
}

export interface UpstreamAnswer {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The reply's body as it arrives (possibly content-encoded: see `content-encoding`). */
  body: Readable;
}

export interface UpstreamTransport {
  /** Send a call; `abort` stops it at any point (the answer, or its body, then fails). */
  send(call: UpstreamCall): { answer: Promise<UpstreamAnswer>; abort(reason: Error): void };
  /** Close the idle keep-alive connections. */
  close(): void;
}

/**
 * The upstream over node:http(s) with one keep-alive agent: no WHATWG Request/Response, no web
 * streams, the body written in one piece with its length. Nothing asks for a compressed reply
 * (`accept-encoding` is not forwarded), so the bytes the client gets are the upstream's.
 */
export function nodeTransport(base: URL): UpstreamTransport {
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const prefix = base.pathname.replace(/\/$/, '');
  const hostname = base.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = base.port === '' ? (secure ? 443 : 80) : Number(base.port);
  return {
    send(call) {
      let request: ClientRequest | null = null;
      let aborted: Error | null = null;
      const headers = call.body ? { ...call.headers, 'content-length': call.body.byteLength } : call.headers;
      const options = { hostname, port, method: call.method, path: prefix + call.pathAndQuery, headers, agent };
      const answer = new Promise<UpstreamAnswer>((resolve, reject) => {
        const attempt = (retry: boolean) => {
          let answered = false;
          // The retry takes a new connection: after a stall every pooled socket may be one the upstream closed.
          const current = send(retry ? options : { ...options, agent: false }, (incoming) => {
            answered = true;
            resolve({
              status: incoming.statusCode ?? 502,
              statusText: incoming.statusMessage ?? '',
              headers: incoming.headers,
              body: incoming,
            });
          });
          request = current;
          current.on('error', (error: Error & { code?: string }) => {
            // A kept-alive connection the upstream closed as this request left: sent again once, on a new one.
            const raced = current.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
            if (retry && raced && !aborted) attempt(false);
            else reject(error);
          });
          if (aborted) current.destroy(aborted);
          else writeBody(current, call.body, call.hold);
        };
        attempt(true);
      });
      return {
        answer,
        abort(reason) {
          aborted = reason;
          (request as ClientRequest | null)?.destroy(reason);
        },
      };
    },
    close: () => agent.destroy(),
  };
}

/** The body in one write, or its pieces corked into one (their `content-length` is set). */
function writeBody(request: ClientRequest, body: OutgoingBody | null, hold: UpstreamCall['hold']): void {
  if (hold) {
    // Written ('finish') or never to be (the request destroyed: nothing more leaves its socket).
    const release = hold();
    request.once('finish', release);
    request.once('close', release);
  }
  if (body === null || body instanceof Uint8Array) {
    request.end(body ?? undefined);
    return;
  }
  request.cork();
  for (const piece of body.pieces) request.write(piece);
  request.end();
}

/** An injected `fetch` (tests, custom agents) behind the same interface; fetch decodes, so encodings are dropped. */
export function fetchTransport(fetchUpstream: typeof fetch, base: URL): UpstreamTransport {
  return {
    send(call) {
      const controller = new AbortController();
      const headers = new Headers();
      for (const [name, value] of Object.entries(call.headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
      }
      const answer = fetchUpstream(upstreamUrl(base, call.pathAndQuery), {
        method: call.method,
        headers,
        // A lent body's memory is reused after the exchange: an injected fetch may read (or keep) it later.
        ...(call.body
          ? { body: (call.hold ? ownCopy(joinedBody(call.body)) : joinedBody(call.body)) as Uint8Array<ArrayBuffer> }
          : {}),
        signal: controller.signal,
        redirect: 'manual',
      }).then((response): UpstreamAnswer => {
        const answerHeaders: IncomingHttpHeaders = {};
        response.headers.forEach((value, name) => {
          if (name !== 'content-encoding' && name !== 'content-length' && name !== 'set-cookie') answerHeaders[name] = value;
        });
        const cookies = response.headers.getSetCookie();
        if (cookies.length > 0) answerHeaders['set-cookie'] = cookies;
        const body = response.body
          ? Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>)
          : Readable.from([]);
        return { status: response.status, statusText: response.statusText, headers: answerHeaders, body };
      });
      return { answer, abort: (reason) => controller.abort(reason) };
    },
    close: () => {},
  };
}
