import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { CONVERSATION_HEADER } from './conversation-key.js';

/** RFC 9110 §7.6.1 connection-specific headers, plus those the runtime sets itself. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
];

const HOP_BY_HOP_SET = new Set(HOP_BY_HOP);
/** What `upstreamRequestHeaders` drops, as a set for node:http's header object. */
const NOT_FORWARDED = new Set([...HOP_BY_HOP, 'accept-encoding', CONVERSATION_HEADER]);

/**
 * Headers to send upstream: everything the client sent (API keys included; they are forwarded,
 * never read) minus hop-by-hop headers, `content-length` (the runtime sets it) and
 * `accept-encoding` (the runtime negotiates and decodes, so usage can be read from the reply).
 */
export function upstreamRequestHeaders(incoming: Headers): Headers {
  const headers = new Headers(incoming);
  for (const name of connectionTokens(incoming)) headers.delete(name);
  for (const name of HOP_BY_HOP) headers.delete(name);
  headers.delete('accept-encoding');
  headers.delete(CONVERSATION_HEADER);
  return headers;
}

/**
 * Headers to send back: the upstream's, minus hop-by-hop headers and `content-encoding` /
 * `content-length`, which no longer describe the body once the runtime has decoded it.
 */
export function clientResponseHeaders(upstream: Headers): Headers {
  const headers = new Headers(upstream);
  for (const name of connectionTokens(upstream)) headers.delete(name);
  for (const name of HOP_BY_HOP) headers.delete(name);
  headers.delete('content-encoding');
  return headers;
}

/** `upstreamRequestHeaders` for node:http's header object (the node front end's hot path: no `Headers`). */
export function upstreamHeadersOf(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = tokensOf(incoming.connection);
  const headers: OutgoingHttpHeaders = {};
  for (const name in incoming) {
    if (!NOT_FORWARDED.has(name) && !named.includes(name)) headers[name] = incoming[name];
  }
  return headers;
}

/**
 * `clientResponseHeaders` for node:http's header object. The body goes to the client as the
 * upstream sent it, so its `content-length` stays true unless the proxy decoded it (`decoded`).
 */
export function clientHeadersOf(upstream: IncomingHttpHeaders, decoded: boolean): OutgoingHttpHeaders {
  const named = tokensOf(upstream.connection);
  const headers: OutgoingHttpHeaders = {};
  for (const name in upstream) {
    if (named.includes(name) || (HOP_BY_HOP_SET.has(name) && name !== 'content-length')) continue;
    if (decoded && (name === 'content-length' || name === 'content-encoding')) continue;
    headers[name] = upstream[name];
  }
  return headers;
}

function tokensOf(connection: string | undefined): string[] {
  return (connection ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token.length > 0);
}

/** Headers named in `Connection` are hop-by-hop too. */
function connectionTokens(headers: Headers): string[] {
  return tokensOf(headers.get('connection') ?? undefined);
}
