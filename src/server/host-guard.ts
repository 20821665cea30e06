import type { MiddlewareHandler } from 'hono';
import { isLoopbackHost } from './loopback.js';

/**
 * Without a token the server trusts whoever can reach it, which is only safe if "whoever" is
 * this machine. A web page whose domain was rebound to 127.0.0.1 (DNS rebinding) reaches it
 * too, but its requests carry the page's own domain in `Host`: answer only loopback Host
 * values (`127.0.0.1`, `localhost`, `[::1]`, any port), so such a page reads nothing.
 */
export function loopbackHostOnly(): MiddlewareHandler {
  return async (context, next) => {
    // `app.request('/path')` in tests has no Host header: the URL's host stands in (node-server builds the URL from Host).
    const host = context.req.header('host') ?? new URL(context.req.url).host;
    if (!host || !isLoopbackHost(hostName(host))) {
      return context.json(
        {
          error: 'forbidden_host',
          message: 'this server answers only Host: 127.0.0.1, localhost or [::1]; start it with a token to serve other names',
        },
        403,
      );
    }
    await next();
  };
}

/** `localhost:4319` -> `localhost`, `[::1]:4319` -> `[::1]`. */
function hostName(host: string): string {
  const trimmed = host.trim();
  if (trimmed.startsWith('[')) {
    const end = trimmed.indexOf(']');
    return end === -1 ? trimmed : trimmed.slice(0, end + 1);
  }
  const colon = trimmed.indexOf(':');
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}
