import type { WireRoute } from './wire-route.js';

/** Why the proxy answered instead of the upstream. */
export type ProxyFailure = 'body-too-large' | 'upstream-unreachable' | 'upstream-timeout' | 'bad-upstream';

const STATUS: Record<ProxyFailure, number> = {
  'body-too-large': 413,
  'upstream-unreachable': 502,
  'upstream-timeout': 504,
  'bad-upstream': 502,
};

/**
 * An error reply in the shape the client's SDK expects from its provider, so it raises its
 * usual typed error (Anthropic `{type:'error', error:{type, message}}`, OpenAI `{error:{message, type, code}}`).
 */
export function proxyErrorResponse(route: WireRoute | null, failure: ProxyFailure, message: string): Response {
  const status = STATUS[failure];
  const text = `cachet proxy: ${message}`;
  const body =
    route === 'anthropic'
      ? { type: 'error', error: { type: failure === 'body-too-large' ? 'request_too_large' : 'api_error', message: text } }
      : {
          error: {
            message: text,
            type: failure === 'body-too-large' ? 'invalid_request_error' : 'server_error',
            param: null,
            code: failure.replaceAll('-', '_'),
          },
        };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-cachet-proxy-error': failure },
  });
}
