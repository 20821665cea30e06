import type { WireRoute } from './wire-route.js';

/** Why the proxy answered instead of the upstream. */
export type ProxyFailure = 'body-too-large' | 'upstream-unreachable' | 'upstream-timeout' | 'bad-upstream' | 'forbidden-host';

const STATUS: Record<ProxyFailure, number> = {
  'body-too-large': 413,
  'upstream-unreachable': 502,
  'upstream-timeout': 504,
  'bad-upstream': 502,
  'forbidden-host': 403,
};

const ANTHROPIC_TYPE: Record<ProxyFailure, string> = {
  'body-too-large': 'request_too_large',
  'upstream-unreachable': 'api_error',
  'upstream-timeout': 'api_error',
  'bad-upstream': 'api_error',
  'forbidden-host': 'permission_error',
};

const OPENAI_TYPE: Record<ProxyFailure, string> = {
  'body-too-large': 'invalid_request_error',
  'upstream-unreachable': 'server_error',
  'upstream-timeout': 'server_error',
  'bad-upstream': 'server_error',
  'forbidden-host': 'invalid_request_error',
};

/**
 * An error reply in the shape the client's SDK expects from its provider, so it raises its
 * usual typed error (Anthropic `{type:'error', error:{type, message}}`, OpenAI `{error:{message, type, code}}`).
 */
export function proxyErrorResponse(route: WireRoute | null, failure: ProxyFailure, message: string): Response {
  const { status, body, headers } = proxyError(route, failure, message);
  return new Response(body, { status, headers });
}

/** The parts of `proxyErrorResponse`, for a front end writing to node:http. */
export function proxyError(
  route: WireRoute | null,
  failure: ProxyFailure,
  message: string,
): { status: number; body: string; headers: Record<string, string> } {
  const status = STATUS[failure];
  const text = `cachet proxy: ${message}`;
  const body =
    route === 'anthropic'
      ? { type: 'error', error: { type: ANTHROPIC_TYPE[failure], message: text } }
      : {
          error: {
            message: text,
            type: OPENAI_TYPE[failure],
            param: null,
            code: failure.replaceAll('-', '_'),
          },
        };
  return { status, body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-cachet-proxy-error': failure } };
}
