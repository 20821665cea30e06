import type { Context } from 'hono';
import type { z } from 'zod';
import { summarizeCauseAgreement } from '../cache/break/compare-server-cause.js';
import type { CachetEvent, EventType, ProxyForwardedPayload } from '../events/catalog.js';
import { CachetError } from '../model/errors.js';
import { summarizePlanSavings } from '../trace/plan-savings.js';
import { MAX_EVENT_LIMIT } from '../trace/trace-queries.js';
import type { TraceFilter, TraceStore } from '../trace/trace-store.js';
import type { AnalyticsReader } from './analytics-reader.js';
import { AnswerCache } from './answer-cache.js';
import { concurrencyLimit } from './concurrency-limit.js';
import { loadDashboardAssets } from './dashboard-assets.js';
import { loopbackHostOnly } from './host-guard.js';
import type { HttpApp } from './http-app.js';
import { honoCore, honoMiddleware } from './http-peers.js';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from './prometheus-text.js';
import {
  analyticsQuerySchema,
  describeQueryError,
  overviewQuerySchema,
  sessionListQuerySchema,
  sessionsQuerySchema,
  toOverviewQuery,
  toSessionListQuery,
  toTraceFilter,
} from './query-schemas.js';
import { serveTokenProblem } from './serve-token.js';

export interface AppOptions {
  store: TraceStore;
  /**
   * When set, every data endpoint requires `Authorization: Bearer <token>`. Without it, only
   * requests whose `Host` is loopback are answered (DNS rebinding).
   */
  token?: string;
  /** Runs the read queries (default: the store itself); `startServer` passes a worker-thread reader for SQLite files. */
  reader?: AnalyticsReader;
  /** Data requests in flight before new ones get 503 + `Retry-After` (default 128). */
  maxConcurrentRequests?: number;
  /** Where unexpected errors are logged (their details never go into a response). Default `console.error`. */
  logError?: (error: unknown) => void;
}

/** Thrown by `createApp` for an unusable configuration (a token that could never authenticate). */
export class AppConfigError extends CachetError {
  constructor(message: string) {
    super('serve_config', message);
  }
}

/**
 * The HTTP analytics API and dashboard over a trace store, as a Hono app (use `app.request`
 * in tests, or `startServer` to listen).
 *
 * @example
 * const app = createApp({ store: await openTraceStore() });
 * const response = await app.request('/analytics/cache_effectiveness?model=gpt-5');
 */
export function createApp(options: AppOptions): HttpApp {
  const { store } = options;
  const reader = options.reader ?? store;
  const logError = options.logError ?? ((error: unknown) => console.error('cachet serve:', error));
  if (options.token !== undefined) {
    const problem = serveTokenProblem(options.token);
    if (problem) throw new AppConfigError(problem);
  }
  const { Hono: HonoApp } = honoCore('the HTTP API (createApp)');
  const { bearerAuth, secureHeaders } = honoMiddleware('the HTTP API (createApp)');
  const app = new HonoApp();
  const assets = loadDashboardAssets();
  const answers = new AnswerCache();

  if (!options.token) app.use('*', loopbackHostOnly());

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
    app.use('/metrics', auth);
    app.use('/sessions/*', auth);
  }
  // One counter for every data route ('/sessions/*' also matches '/sessions': registering per pattern would count twice).
  const limit = concurrencyLimit(options.maxConcurrentRequests ?? 128);
  app.use('*', (context, next) => (isDataPath(context.req.path) ? limit(context, next) : next()));

  // Requests arriving while the data version is being read share that read (PostgreSQL has 4 connections).
  let versionRead: Promise<string> | null = null;
  const dataVersion = () => {
    versionRead ??= store.dataVersion().finally(() => {
      versionRead = null;
    });
    return versionRead;
  };

  /**
   * A JSON answer reused until the store's data changes (see `AnswerCache`): gzip when the
   * client accepts it (browsers do), 304 when it already holds this version.
   */
  const cachedJson = async (context: Context, key: string, compute: () => Promise<unknown>) => {
    const answer = await answers.get(key, await dataVersion(), compute);
    const headers: Record<string, string> = { 'content-type': 'application/json', etag: answer.etag, vary: 'accept-encoding' };
    if (context.req.header('if-none-match') === answer.etag) return context.body(null, 304, headers);
    if (/\bgzip\b/.test(context.req.header('accept-encoding') ?? '')) {
      return context.body(answer.gzip as Uint8Array<ArrayBuffer>, 200, { ...headers, 'content-encoding': 'gzip' });
    }
    return context.body(answer.json as Uint8Array<ArrayBuffer>, 200, headers);
  };

  const invalid = (error: z.ZodError) => ({ error: 'invalid_query', message: describeQueryError(error) });

  /** An `/analytics/*` endpoint: validate the query, answer from the store with the filter it names. */
  const analytics = (path: string, answer: (filter: TraceFilter) => Promise<unknown>) =>
    app.get(`/analytics/${path}`, async (context) => {
      const query = analyticsQuerySchema.safeParse(context.req.query());
      if (!query.success) return context.json(invalid(query.error), 400);
      const filter = toTraceFilter(query.data);
      return cachedJson(context, `${path} ${JSON.stringify(filter)}`, () => answer(filter));
    });
  analytics('cache_effectiveness', (filter) => reader.cacheEffectiveness(filter));
  analytics('cache_breaks', async (filter) => ({ filter, breaks: await reader.breakCauses(filter) }));
  analytics('skills', (filter) => reader.skills(filter));
  /** The events of `type` in the filter's session and time range, at most MAX_EVENT_LIMIT (an event query has no model filter). */
  const eventsWithin = async <T extends EventType>(type: T, filter: TraceFilter) =>
    (await store.events({
      types: [type],
      limit: MAX_EVENT_LIMIT,
      ...(filter.sessionId !== undefined ? { sessionId: filter.sessionId } : {}),
      ...(filter.from !== undefined ? { from: filter.from } : {}),
      ...(filter.to !== undefined ? { to: filter.to } : {}),
    })) as CachetEvent<T>[];
  // How often Cachet's cause and the provider's own diagnosis (`serverCause`) agree, and where not.
  analytics('cause_agreement', async (filter) => {
    const breaks = await eventsWithin('cache.break', filter);
    return { filter, ...summarizeCauseAgreement(breaks.map((event) => event.payload)) };
  });

  // What `cachet proxy --plan` saved against the clients' own markers (`proxy.forwarded` events).
  analytics('plan_savings', async (filter) => {
    const events = await eventsWithin('proxy.forwarded', filter);
    const bySession = new Map<string, ProxyForwardedPayload[]>();
    for (const event of events) {
      const list = bySession.get(event.sessionId) ?? [];
      list.push(event.payload);
      bySession.set(event.sessionId, list);
    }
    return {
      filter,
      ...summarizePlanSavings(events.map((event) => event.payload)),
      // The store answers at most MAX_EVENT_LIMIT events: narrow the filter when this is true.
      truncated: events.length === MAX_EVENT_LIMIT,
      sessions: [...bySession].map(([sessionId, payloads]) => ({ sessionId, ...summarizePlanSavings(payloads) })),
    };
  });

  // Across sessions (the dashboard's landing page): aggregates computed by the store in SQL.
  app.get('/analytics/overview', async (context) => {
    const query = overviewQuerySchema.safeParse(context.req.query());
    if (!query.success) return context.json(invalid(query.error), 400);
    const overview = toOverviewQuery(query.data);
    return cachedJson(context, `overview ${JSON.stringify(overview)}`, () => reader.overview(overview));
  });
  app.get('/analytics/session_list', async (context) => {
    const query = sessionListQuerySchema.safeParse(context.req.query());
    if (!query.success) return context.json(invalid(query.error), 400);
    const list = toSessionListQuery(query.data);
    return cachedJson(context, `session_list ${JSON.stringify(list)}`, () => reader.sessionList(list));
  });

  // Prometheus scrapes every few seconds: the text is rebuilt only when the store's data changed.
  let metricsText: { version: string; text: Promise<string> } | null = null;
  app.get('/metrics', async (context) => {
    const version = await dataVersion();
    if (metricsText?.version !== version) {
      const text = reader.fleetMetrics().then(prometheusText);
      metricsText = { version, text };
      text.catch(() => {
        if (metricsText?.text === text) metricsText = null;
      });
    }
    return context.body(await metricsText.text, 200, { 'content-type': PROMETHEUS_CONTENT_TYPE });
  });

  app.get('/sessions', async (context) => {
    const query = sessionsQuerySchema.safeParse(context.req.query());
    if (!query.success) return context.json(invalid(query.error), 400);
    const { session, ...page } = query.data;
    const options = session === undefined ? page : { ...page, sessionId: session };
    return cachedJson(context, `sessions ${JSON.stringify(options)}`, async () => ({
      sessions: await reader.sessions(options),
    }));
  });

  // Session ids may contain `/` (the demo's do): accept them raw as well as percent-encoded.
  app.get('/sessions/:id{.+}/requests', async (context) => {
    const sessionId = context.req.param('id');
    const requests = await reader.requests(sessionId);
    if (requests.length === 0 && (await store.events({ sessionId, limit: 1 })).length === 0) {
      // The store's location (a file path, a database URL) is not the client's business.
      return context.json({ error: 'not_found', message: `no session ${JSON.stringify(sessionId)}` }, 404);
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
    // Store errors name the database file or the PostgreSQL user, host and database: log them, answer generically.
    logError(error);
    return context.json({ error: 'internal_error', message: 'the trace store could not answer; see the server log' }, 500);
  });
  return app;
}

function isDataPath(path: string): boolean {
  return path === '/sessions' || path === '/metrics' || path.startsWith('/sessions/') || path.startsWith('/analytics/');
}
