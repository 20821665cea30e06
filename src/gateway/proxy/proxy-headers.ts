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

/** Headers Cachet reads itself and does not forward. */
export const CONVERSATION_HEADER = 'x-cachet-conversation';

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

/** Headers named in `Connection` are hop-by-hop too. */
function connectionTokens(headers: Headers): string[] {
  return (headers.get('connection') ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token.length > 0);
}
