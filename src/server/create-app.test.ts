import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTraceStore } from '../trace/open-trace-store.js';
import { sampleEvents, T0 } from '../trace/test-support/sample-events.js';
import type { TraceStore } from '../trace/trace-store.js';
import { createApp } from './create-app.js';

let store: TraceStore;
beforeAll(async () => {
  store = await openTraceStore(':memory:');
  await store.appendBatch(sampleEvents());
});
afterAll(() => store.close());

describe('analytics API', () => {
  it('serves cache effectiveness equal to the store, filtered by session, model and time range', async () => {
    const app = createApp({ store });
    const all = await app.request('/analytics/cache_effectiveness');
    expect(all.status).toBe(200);
    expect(await all.json()).toEqual(JSON.parse(JSON.stringify(await store.cacheEffectiveness())));

    const filtered = await app.request(
      `/analytics/cache_effectiveness?session=s-alpha&model=claude-sonnet-4-5&from=${T0}&to=${new Date(T0 + 60_000 + 1000).toISOString()}`,
    );
    const body = await filtered.json();
    expect(body.filter).toEqual({ sessionId: 's-alpha', model: 'claude-sonnet-4-5', from: T0, to: T0 + 61_000 });
    expect(body.overall.requests).toBe(2);
    expect(body.overall.tokens.cacheRead).toBe(2000);
  });

  it('serves sessions, requests of a session, skills and break causes', async () => {
    const app = createApp({ store });
    const sessions = await (await app.request('/sessions?limit=1')).json();
    expect(sessions.sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual(['s-beta']);
    const requests = await (await app.request('/sessions/s-alpha/requests')).json();
    expect(requests).toEqual(JSON.parse(JSON.stringify({ sessionId: 's-alpha', requests: await store.requests('s-alpha') })));
    const skills = await (await app.request('/analytics/skills?model=gpt-5')).json();
    expect(skills.byReason).toEqual([
      { loadReason: 'auto_suggested', loads: 1, loadTokens: 300, distinctSkills: 1, sessions: 1 },
    ]);
    const breaks = await (await app.request('/analytics/cache_breaks')).json();
    expect(breaks.breaks.map((row: { cause: string }) => row.cause)).toEqual(['clock', 'tool-order']);
  });

  it('serves requests of a session whose id contains slashes, raw or percent-encoded', async () => {
    const slashed = await openTraceStore(':memory:');
    const sessionId = 'demo-20261122T002028Z/coding-agent/markers';
    await slashed.appendBatch(sampleEvents().map((event) => ({ ...event, sessionId: `${sessionId}${event.sessionId}` })));
    const app = createApp({ store: slashed });
    const expected = JSON.parse(
      JSON.stringify({ sessionId: `${sessionId}s-alpha`, requests: await slashed.requests(`${sessionId}s-alpha`) }),
    );
    expect(expected.requests.length).toBeGreaterThan(0);
    for (const path of [
      `/sessions/${sessionId}s-alpha/requests`,
      `/sessions/${encodeURIComponent(`${sessionId}s-alpha`)}/requests`,
    ]) {
      const response = await app.request(path);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(expected);
    }
    await slashed.close();
  });

  it('answers 404 for an unknown session and route', async () => {
    const app = createApp({ store });
    const missing = await app.request('/sessions/nobody/requests');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toBe('not_found');
    expect((await app.request('/nope')).status).toBe(404);
  });

  it('rejects bad query parameters with 400 and a message naming them', async () => {
    const app = createApp({ store });
    const cases: Array<[string, RegExp]> = [
      ['/analytics/cache_effectiveness?from=yesterday', /from: expected epoch milliseconds or an ISO 8601/],
      ['/analytics/cache_effectiveness?from=2000&to=1000', /"from" must not be after "to"/],
      ['/analytics/cache_effectiveness?sesion=s-alpha', /unknown query parameter\(s\): sesion/],
      ['/analytics/skills?model=', /model: expected a non-empty value/],
      ['/sessions?limit=0', /limit:/],
      ['/sessions?offset=-1', /offset:/],
    ];
    for (const [path, message] of cases) {
      const response = await app.request(path);
      expect(response.status, path).toBe(400);
      const body = await response.json();
      expect(body.error).toBe('invalid_query');
      expect(body.message).toMatch(message);
    }
  });

  it('serves the dashboard page, its script and uPlot without a CDN', async () => {
    const app = createApp({ store });
    const page = await app.request('/');
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('/vendor/uPlot.iife.min.js');
    expect(html).not.toMatch(/https?:\/\//);
    const uplot = await app.request('/vendor/uPlot.iife.min.js');
    expect(uplot.status).toBe(200);
    expect(await uplot.text()).toContain('uPlot');
    expect((await app.request('/dashboard.js')).status).toBe(200);
  });
});

describe('bearer token', () => {
  const token = 'a-long-enough-test-token';

  it('rejects data requests without the token or with a wrong one (401) and accepts the right one', async () => {
    const app = createApp({ store, token });
    for (const path of ['/sessions', '/sessions/s-alpha/requests', '/analytics/cache_effectiveness', '/analytics/skills']) {
      expect((await app.request(path)).status, path).toBe(401);
      expect((await app.request(path, { headers: { authorization: 'Bearer wrong-token-of-some-length' } })).status, path).toBe(
        401,
      );
      expect((await app.request(path, { headers: { authorization: `Bearer ${token}` } })).status, path).toBe(200);
    }
  });

  it('keeps the data-free page public so a browser can load it', async () => {
    const app = createApp({ store, token });
    expect((await app.request('/')).status).toBe(200);
    expect((await app.request('/dashboard.js')).status).toBe(200);
  });
});
