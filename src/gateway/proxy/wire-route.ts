import { ValidationError } from '../../model/errors.js';
import type { WireShape } from '../../providers/provider-entry.js';
import { type ProviderId, providerEntry } from '../../providers/registry.js';

/** Which wire API a proxied path speaks; `null` for paths the proxy passes through without reading. */
export type WireRoute = 'anthropic' | 'openai-chat' | 'openai-responses';

/**
 * Recognise the request paths whose bodies and replies the proxy reads: Anthropic `/v1/messages`,
 * and `…/chat/completions` and `…/responses` under any prefix (`/v1`, OpenRouter's `/api/v1`).
 * Token counting, model listing and everything else pass through untouched and unrecorded.
 */
export function wireRouteOf(method: string, path: string): WireRoute | null {
  if (method !== 'POST') return null;
  if (path.endsWith('/v1/messages')) return 'anthropic';
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  if (path.endsWith('/responses')) return 'openai-responses';
  return null;
}

/** The wire routes the proxy and `analyze` read; Converse and Gemini bodies are not among them yet. */
const ROUTE_OF_WIRE: Partial<Record<WireShape, WireRoute>> = {
  'anthropic-messages': 'anthropic',
  'chat-completions': 'openai-chat',
  responses: 'openai-responses',
};

/** The wire route a provider's bodies take, from the registry; a typed error for wires the gateway does not read. */
export function wireRouteOfProvider(id: ProviderId): WireRoute {
  const wire = providerEntry(id).wire;
  const route = ROUTE_OF_WIRE[wire];
  if (!route) {
    throw new ValidationError(
      'provider',
      `a provider whose bodies the gateway reads (${Object.keys(ROUTE_OF_WIRE).join(', ')} wire shapes)`,
      `got ${id} (${wire})`,
    );
  }
  return route;
}

/** Upstream base URLs of the named providers; anything else must be an http(s) URL. */
export const KNOWN_UPSTREAMS: Readonly<Record<string, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  openrouter: 'https://openrouter.ai',
};

/**
 * Resolve `--upstream`: a provider name or an http(s) base URL (its path is kept as a prefix).
 * A URL carrying `user:password@` is refused: the proxy forwards each client's own credentials
 * and would otherwise drop these silently; no error names the credentials.
 */
export function resolveUpstream(upstream: string): URL {
  const known = KNOWN_UPSTREAMS[upstream];
  let url: URL;
  try {
    url = new URL(known ?? upstream);
  } catch {
    throw new ValidationError(
      'upstream',
      'anthropic, openai, openrouter or an http(s) URL',
      `got ${JSON.stringify(redactUserInfo(upstream))}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError('upstream', 'an http(s) URL', `got ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ValidationError(
      'upstream',
      "a URL without user:password@ (clients' own API keys are forwarded; credentials in the URL are not sent)",
      `got credentials for ${url.host}; give them to the client as a header instead`,
    );
  }
  return url;
}

/** The upstream as it may be printed: origin and path prefix, never credentials or a query. */
export function printableUpstream(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** Text with anything between `//` and `@` masked, for echoing a value that failed to parse. */
function redactUserInfo(text: string): string {
  return text.replace(/\/\/[^/]*@/g, '//***@');
}

/** The upstream URL of a proxied request: the upstream's path prefix, then the request's path and query. */
export function upstreamUrl(base: URL, pathAndQuery: string): string {
  const prefix = base.pathname.replace(/\/$/, '');
  return `${base.origin}${prefix}${pathAndQuery}`;
}
