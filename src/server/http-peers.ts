import type * as NodeServer from '@hono/node-server';
import type * as HonoCore from 'hono';
import type * as BearerAuth from 'hono/bearer-auth';
import type * as SecureHeaders from 'hono/secure-headers';
import { requireOptional } from '../model/optional-dependency.js';

/*
 * hono and @hono/node-server are optional peers: the HTTP surfaces load them on first use (their
 * CommonJS builds, so app factories stay synchronous), never on import. `import 'cachet/server'`
 * or `'cachet/gateway'` works without them; creating an app throws `MissingDependencyError`.
 */

/** hono's core (the `Hono` class). */
export function honoCore(purpose: string): typeof HonoCore {
  return requireOptional<typeof HonoCore>('hono', 'hono', purpose);
}

/** hono's bearer-auth and secure-headers middleware. */
export function honoMiddleware(purpose: string): {
  bearerAuth: typeof BearerAuth.bearerAuth;
  secureHeaders: typeof SecureHeaders.secureHeaders;
} {
  const { bearerAuth } = requireOptional<typeof BearerAuth>('hono', 'hono/bearer-auth', purpose);
  const { secureHeaders } = requireOptional<typeof SecureHeaders>('hono', 'hono/secure-headers', purpose);
  return { bearerAuth, secureHeaders };
}

/** @hono/node-server's `serve`, which binds a Hono app to a Node HTTP server. */
export function nodeServe(purpose: string): typeof NodeServer.serve {
  return requireOptional<typeof NodeServer>('@hono/node-server', '@hono/node-server', purpose).serve;
}
