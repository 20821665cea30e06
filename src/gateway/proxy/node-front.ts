import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { StreamReader, StreamSummary } from '../../providers/shared/stream-summary.js';
import { causeLine } from '../client-stream.js';
import { ClientGoneError, readIncomingLimited } from '../http/read-limited-body.js';
import { isLoopbackHostHeader } from '../listen-policy.js';
import { type BodyLease, type BodySlabs, createBodySlabs } from './body-slabs.js';
import { CONVERSATION_HEADER } from './conversation-key.js';
import { READERS } from './observe-reply.js';
import type { ProxyCore } from './proxy-core.js';
import { type ProxyFailure, proxyError } from './proxy-errors.js';
import { clientHeadersOf, upstreamHeadersOf } from './proxy-headers.js';
import type { UpstreamAnswer, UpstreamCall, UpstreamTransport } from './upstream-transport.js';
import { type WireRoute, wireRouteOf } from './wire-route.js';

export const FORBIDDEN_HOST_MESSAGE =
  'this proxy answers only Host: 127.0.0.1, localhost or [::1]; start it with --allow-remote on another interface to serve other names';

export type NodeProxyHandler = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

/** Whether the client is still there, and how to stop relaying its departure once the exchange is over. */
interface ClientLink {
  gone(): boolean;
  release(): void;
}

/**
 * The proxy's node:http front end (what `startProxy` serves): the client's body read with its
 * limit, the core's plan and record stages, the upstream called through `transport`, and the
 * reply written to the client as it arrives. The hot path holds no WHATWG Request, Response or
 * web stream; a JSON reply is buffered (one write, a 502 if it breaks off), an SSE reply flows
 * chunk by chunk while the provider's stream reader reads the same chunks.
 */
export function createNodeProxyHandler(
  core: ProxyCore,
  transport: UpstreamTransport,
  onWarning: ((message: string) => void) | undefined,
): NodeProxyHandler {
  // Bodies of 32 KB–4 MB are read into reused slabs (`--plan` sends and keeps views of the tracker's copy).
  const slabs = createBodySlabs();
  return (incoming, outgoing) => {
    handle(core, transport, onWarning, slabs, incoming, outgoing).catch((error: unknown) => {
      if (error instanceof ClientGoneError || outgoing.headersSent) outgoing.destroy();
      else writeProxyError(outgoing, null, 'bad-upstream', `the request failed (${causeLine(error)})`);
    });
  };
}

async function handle(
  core: ProxyCore,
  transport: UpstreamTransport,
  onWarning: ((message: string) => void) | undefined,
  slabs: BodySlabs,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  const { pathname, pathAndQuery } = splitTarget(incoming.url ?? '/');
  const method = incoming.method ?? 'GET';
  const route = wireRouteOf(method, pathname);
  if (core.hostGuard && !isLoopbackHostHeader(incoming.headers.host)) {
    return writeProxyError(outgoing, route, 'forbidden-host', FORBIDDEN_HOST_MESSAGE);
  }
  let bytes: Buffer | null = null;
  let lease: BodyLease | null = null;
  if (method !== 'GET' && method !== 'HEAD') {
    bytes = await readIncomingLimited(incoming, core.maxBodyBytes, (size) => {
      lease = slabs.take(size);
      return lease?.bytes ?? null;
    });
    if (bytes === null) {
      return writeProxyError(outgoing, route, 'body-too-large', `the request body exceeds ${core.maxBodyBytes} bytes`, true);
    }
  }
  // The front's hold on a lent body: handed to the record stage with the exchange, else released once sent.
  const release = (lease as BodyLease | null)?.hold() ?? (() => {});
  const exchange =
    route && bytes
      ? core.begin({
          route,
          bytes,
          release,
          pathAndQuery,
          conversationHeader: firstValue(incoming.headers[CONVERSATION_HEADER]),
          userAgent: incoming.headers['user-agent'] ?? null,
          headers: () => headersOf(incoming.headers),
        })
      : null;
  const call: UpstreamCall = {
    method,
    pathAndQuery,
    headers: upstreamHeadersOf(incoming.headers),
    body: exchange?.sent ?? bytes,
    ...(lease ? { hold: (lease as BodyLease).hold } : {}),
  };
  const forwarded = await forward(core, transport, call, outgoing, route);
  // An exchange that ends here is finished unrecorded (its hold released, the core told the client is done).
  if (!forwarded) return exchange ? exchange.finish(null, 0) : release();
  const { answer, link } = forwarded;
  if (!exchange || !route || answer.status < 200 || answer.status > 299) {
    if (exchange) exchange.finish(null, answer.status);
    else release();
    const body = decodedBody(answer, false);
    outgoing.writeHead(answer.status, answer.statusText, clientHeadersOf(answer.headers, false));
    const warn = breakWarning(onWarning);
    return relay(body, outgoing, {
      onEnd: () => link.release(),
      onFail: (error, bytesSent) => {
        if (!link.gone()) warn(error, bytesSent);
        link.release();
      },
    });
  }
  let settle: () => void = () => {};
  core.track(new Promise<void>((resolve) => (settle = resolve)));
  let finished = false;
  const finish = (summary: StreamSummary | null) => {
    if (finished) return;
    finished = true;
    link.release();
    exchange.finish(summary, answer.status);
    settle();
  };
  const streamed = String(answer.headers['content-type'] ?? '').includes('text/event-stream');
  const reader = READERS[route](streamed);
  if (streamed) streamReply(answer, outgoing, link, reader, finish, breakWarning(onWarning));
  else bufferReply(answer, outgoing, link, reader, finish, route);
}

/** Send the call; null once an error reply (504, 502) is written or the client has left. */
async function forward(
  core: ProxyCore,
  transport: UpstreamTransport,
  call: UpstreamCall,
  outgoing: ServerResponse,
  route: WireRoute | null,
): Promise<{ answer: UpstreamAnswer; link: ClientLink } | null> {
  const sending = transport.send(call);
  let timedOut = false;
  let clientGone = false;
  const onClose = () => {
    if (outgoing.writableFinished) return;
    clientGone = true;
    sending.abort(new Error('the client went away'));
  };
  outgoing.on('close', onClose);
  const link: ClientLink = { gone: () => clientGone, release: () => outgoing.off('close', onClose) };
  const timer = setTimeout(() => {
    timedOut = true;
    sending.abort(new Error('upstream timeout'));
  }, core.timeoutMs);
  try {
    return { answer: await sending.answer, link };
  } catch (error) {
    link.release();
    if (timedOut) {
      writeProxyError(outgoing, route, 'upstream-timeout', `the upstream sent no response within ${core.timeoutMs} ms`);
    } else if (!clientGone) {
      writeProxyError(outgoing, route, 'upstream-unreachable', `the upstream could not be reached (${causeLine(error)})`);
    }
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** A JSON reply: read whole, answered in one write with its length, then read for usage a turn later. */
function bufferReply(
  answer: UpstreamAnswer,
  outgoing: ServerResponse,
  link: ClientLink,
  reader: StreamReader,
  finish: (summary: StreamSummary | null) => void,
  route: WireRoute,
): void {
  const decoded = isDecodable(answer.headers['content-encoding']);
  const body = decodedBody(answer, decoded);
  const chunks: Buffer[] = [];
  let size = 0;
  body.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.byteLength;
  });
  let over = false;
  body.on('end', () => {
    over = true;
    const replyBytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    const headers = clientHeadersOf(answer.headers, decoded);
    headers['content-length'] = size;
    if (!outgoing.destroyed) {
      outgoing.writeHead(answer.status, answer.statusText, headers);
      outgoing.end(replyBytes);
    }
    setImmediate(() => finish(readWhole(reader, replyBytes)));
  });
  const fail = (error: unknown) => {
    if (over) return;
    over = true;
    if (!link.gone()) writeProxyError(outgoing, route, 'bad-upstream', `the upstream reply broke off (${causeLine(error)})`);
    finish(null);
  };
  body.on('error', fail);
  // 'close' follows every reply, complete or not: the Error (and its stack) is built only for a broken one.
  body.on('close', () => {
    if (!over) fail(new Error('the upstream closed the reply'));
  });
}

/** An SSE reply: each chunk goes to the client as it arrives and to the stream reader beside it. */
function streamReply(
  answer: UpstreamAnswer,
  outgoing: ServerResponse,
  link: ClientLink,
  reader: StreamReader,
  finish: (summary: StreamSummary | null) => void,
  onBreak: (error: unknown, bytesSent: number) => void,
): void {
  const decoded = isDecodable(answer.headers['content-encoding']);
  const body = decodedBody(answer, decoded);
  outgoing.writeHead(answer.status, answer.statusText, clientHeadersOf(answer.headers, decoded));
  const text = new StringDecoder('utf8');
  let readable = true;
  relay(body, outgoing, {
    onChunk: (chunk) => {
      if (!readable) return;
      try {
        reader.push(text.write(chunk));
      } catch {
        readable = false;
      }
    },
    onEnd: () => {
      let summary: StreamSummary | null = null;
      if (readable) summary = readWhole(reader, null, text.end());
      setImmediate(() => finish(summary));
    },
    onFail: (error, bytesSent) => {
      if (!link.gone()) onBreak(error, bytesSent);
      finish(null);
    },
  });
}

/** Relay a body to the client with backpressure; `onFail` once if it ends otherwise than complete. */
function relay(
  body: Readable,
  outgoing: ServerResponse,
  hooks: { onChunk?: (chunk: Buffer) => void; onEnd: () => void; onFail: (error: unknown, bytesSent: number) => void },
): void {
  let bytesSent = 0;
  let over = false;
  body.on('data', (chunk: Buffer) => {
    hooks.onChunk?.(chunk);
    if (outgoing.destroyed) return;
    bytesSent += chunk.byteLength;
    if (!outgoing.write(chunk)) {
      body.pause();
      outgoing.once('drain', () => body.resume());
    }
  });
  body.on('end', () => {
    over = true;
    outgoing.end();
    hooks.onEnd();
  });
  const fail = (error: unknown) => {
    if (over) return;
    over = true;
    hooks.onFail(error, bytesSent);
    outgoing.destroy();
  };
  body.on('error', fail);
  body.on('close', () => {
    if (!over) fail(new Error('the upstream closed the reply'));
  });
}

function breakWarning(onWarning: ((message: string) => void) | undefined): (error: unknown, bytesSent: number) => void {
  return (error, bytesSent) =>
    onWarning?.(
      `cachet proxy: the upstream's reply broke off after ${bytesSent} bytes (${causeLine(error)}); the client's connection was closed`,
    );
}

function readWhole(reader: StreamReader, bytes: Buffer | null, tail = ''): StreamSummary | null {
  try {
    reader.push(bytes ? bytes.toString('utf8') : tail);
    return reader.finish();
  } catch {
    return null;
  }
}

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

function isDecodable(encoding: string | undefined): boolean {
  return encoding !== undefined && encoding.trim().toLowerCase() in DECODERS;
}

/** The reply's body, decoded when asked (an upstream that compressed although nothing asked it to). */
function decodedBody(answer: UpstreamAnswer, decode: boolean): Readable {
  if (!decode) return answer.body;
  const decoder = DECODERS[String(answer.headers['content-encoding']).trim().toLowerCase()]!();
  return pipeline(answer.body, decoder, () => {}) as unknown as Readable;
}

function writeProxyError(
  outgoing: ServerResponse,
  route: WireRoute | null,
  failure: ProxyFailure,
  message: string,
  close = false,
): void {
  if (outgoing.destroyed || outgoing.headersSent) return;
  const { status, body, headers } = proxyError(route, failure, message);
  outgoing.writeHead(status, {
    ...headers,
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
  });
  outgoing.end(body);
}

/** `/v1/messages?beta=true` → its path (for the route) and the path with its query (forwarded as sent). */
function splitTarget(target: string): { pathname: string; pathAndQuery: string } {
  if (!target.startsWith('/')) {
    try {
      const url = new URL(target);
      return { pathname: url.pathname, pathAndQuery: url.pathname + url.search };
    } catch {
      return { pathname: '/', pathAndQuery: '/' };
    }
  }
  const query = target.indexOf('?');
  return { pathname: query < 0 ? target : target.slice(0, query), pathAndQuery: target };
}

function firstValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}
