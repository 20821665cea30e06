import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { secureHeaders } from 'hono/secure-headers';
import type { z } from 'zod';
import { summarizeCauseAgreement } from '../cache/break/compare-server-cause.js';
import type { CachetEvent } from '../events/catalog.js';
import type { TraceFilter, TraceStore } from '../trace/trace-store.js';
import { loadDashboardAssets } from './dashboard-assets.js';
import { analyticsQuerySchema, describeQueryError, sessionsQuerySchema, toTraceFilter } from './query-schemas.js';

export interface AppOptions {
  store: TraceStore;
  /** When set, every data endpoint requires `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * The HTTP analytics API and dashboard over a trace store, as a Hono app (use `app.request`
 * in tests, or `startServer` to listen).
 *
 * @example
 * const app = createApp({ store: await openTraceStore() });
 * const response = await app.request('/analytics/cache_effectiveness?model=gpt-5');
 */
export function createApp(options: AppOptions): Hono {
  const { store } = options;
  const app = new Hono();
  const assets = loadDashboardAssets();

  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
      },
    }),
  );

  // The page and scripts carry no data and stay public, so a browser can load them; the page
  // reads the token from the URL fragment (never sent to the server) for its API calls.
  for (const [path, asset] of assets) {
    app.get(path, (context) => context.body(asset.body, 200, { 'content-type': asset.contentType, 'cache-control': 'no-cache' }));
  }

  if (options.token) {
    const auth = bearerAuth({
      token: options.token,
      noAuthenticationHeader: { message: { error: 'unauthorized', message: 'missing Authorization: Bearer <token>' } },
      invalidToken: { message: { error: 'unauthorized', message: 'invalid bearer token' } },
      invalidAuthenticationHeader: {
        message: { error: 'bad_request', message: 'Authorization header must be "Bearer <token>"' },
      },
    });
    app.use('/analytics/*', auth);
    app.use('/sessions', auth);
    app.use('/sessions/*', auth);
  }

  const invalid = (error: z.ZodError) => ({ error: 'invalid_query', message: describeQueryError(error) });

  /** An `/analytics/*` endpoint: validate the query, answer from the store with the filter it names. */
  const analytics = (path: string, answer: (filter: TraceFilter) => Promise<unknown>) =>
    app.get(`/analytics/${path}`, async (context) => {
      const query = analyticsQuerySchema.safeParse(context.req.query());
      if (!query.success) return context.json(invalid(query.error), 400);
      return context.json(await answer(toTraceFilter(query.data)));
    });
  analytics('cache_effectiveness', (filter) => store.cacheEffectiveness(filter));
  analytics('cache_breaks', async (filter) => ({ filter, breaks: await store.breakCauses(filter) }));
  analytics('skills', (filter) => store.skills(filter));
  // How often Cachet's cause and the provider's own diagnosis (`serverCause`) agree, and where not.
  analytics('cause_agreement', async (filter) => {
    const breaks = (await store.events({
      types: ['cache.break'],
      limit: 100_000,
      ...(filter.sessionId !== undefined ? { sessionId: filter.sessionId } : {}),
      ...(filter.from !== undefined ? { from: filter.from } : {}),
      ...(filter.to !== undefined ? { to: filter.to } : {}),
    })) as CachetEvent<'cache.break'>[];
    return { filter, ...summarizeCauseAgreement(breaks.map((event) => event.payload)) };
  });

  app.get('/sessions', async (context) => {
    const query = sessionsQuerySchema.safeParse(context.req.query());
    if (!query.success) return context.json(invalid(query.error), 400);
    return context.json({ sessions: await store.sessions(query.data) });
  });

  // Session ids may contain `/` (the demo's do): accept them raw as well as percent-encoded.
  app.get('/sessions/:id{.+}/requests', async (context) => {
    const sessionId = context.req.param('id');
    const requests = await store.requests(sessionId);
    if (requests.length === 0 && (await store.events({ sessionId, limit: 1 })).length === 0) {
      return context.json({ error: 'not_found', message: `no session "${sessionId}" in ${store.location}` }, 404);
    }
    return context.json({ sessionId, requests });
  });

  app.notFound((context) =>
    context.json({ error: 'not_found', message: `no route ${context.req.method} ${context.req.path}` }, 404),
  );
  app.onError((error, context) => {
    if (error instanceof Error && 'getResponse' in error && typeof error.getResponse === 'function') {
      return error.getResponse() as Response;
    }
    return context.json({ error: 'internal_error', message: error instanceof Error ? error.message : String(error) }, 500);
  });
  return app;
}
