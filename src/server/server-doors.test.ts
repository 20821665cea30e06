import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { openTraceStore } from '../trace/open-trace-store.js';
import { sampleEvents } from '../trace/test-support/sample-events.js';
import type { TraceStore } from '../trace/trace-store.js';
import { TraceStoreError } from '../trace/trace-store-error.js';
import { createApp } from './create-app.js';
import { ServeConfigError, startServer } from './start-server.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-doors-'));
const dbPath = join(directory, 'secret-place', 'traces.db');
let store: TraceStore;
beforeAll(async () => {
  store = await openTraceStore(dbPath);
  await store.appendBatch(sampleEvents());
});
afterAll(async () => {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});

/** GET over node:http, which (unlike fetch) lets the test choose the Host header, as a rebound page would send it. */
function get(port: number, path: string, host: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, headers: { host, ...headers } }, (incoming) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk) => {
        body += chunk;
      });
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('DNS rebinding', () => {
  it('answers only loopback Host values without a token', async () => {
    const server = await startServer({ store, port: 0 });
    try {
      for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`, 'localhost']) {
        expect((await get(server.port, '/sessions', host)).status, host).toBe(200);
      }
      for (const host of [`attacker.example:${server.port}`, 'attacker.example', `127.0.0.1.nip.io:${server.port}`]) {
        const answer = await get(server.port, '/analytics/cache_effectiveness', host);
        expect(answer.status, host).toBe(403);
        expect(answer.body).not.toContain('s-alpha');
        expect((await get(server.port, '/', host)).status, host).toBe(403);
      }
    } finally {
      await server.close();
    }
  });

  it('answers any Host when a token guards the data', async () => {
    const token = 'a-long-enough-test-token';
    const server = await startServer({ store, port: 0, token });
    try {
      const answer = await get(server.port, '/sessions', 'traces.internal', { authorization: `Bearer ${token}` });
      expect(answer.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('tokens', () => {
  for (const token of ['has spaces in it but long', 'punctuation!#$%&*(),;<>?', 'tab\tseparated-token-value']) {
    it(`refuses ${JSON.stringify(token)} at start-up`, async () => {
      await expect(startServer({ store, port: 0, token })).rejects.toThrow(ServeConfigError);
      await expect(startServer({ store, port: 0, token })).rejects.toThrow(/letters, digits/);
      expect(() => createApp({ store, token })).toThrow(/letters, digits/);
    });
  }

  it('makes the CLI exit 2 with a clear message', async () => {
    const errors: string[] = [];
    const code = await main(['serve', '--db', dbPath, '--port', '0', '--token', 'has spaces in it but long'], {
      out: () => {},
      err: (text) => errors.push(text),
      errIsTty: false,
    });
    expect(code).toBe(2);
    expect(errors.join('')).toMatch(/bearer token may contain only/);
  });
});

describe('error bodies', () => {
  it('never name the database file in a 404', async () => {
    const app = createApp({ store });
    const answer = await app.request('/sessions/nobody/requests');
    expect(answer.status).toBe(404);
    const body = await answer.text();
    expect(body).not.toContain(directory);
    expect(body).toContain('nobody');
  });

  it('log store errors and answer 500 without the location or credentials', async () => {
    const logged: unknown[] = [];
    const location = 'postgres://cachet_admin:***@db.internal:5432/prod_traces';
    const failing = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'sessions') {
          return async () => {
            throw new TraceStoreError('store_unavailable', location, 'password authentication failed for user "cachet_admin"');
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const app = createApp({ store: failing, logError: (error) => logged.push(error) });
    const answer = await app.request('/sessions');
    expect(answer.status).toBe(500);
    const body = await answer.text();
    for (const secret of ['cachet_admin', 'db.internal', 'prod_traces']) expect(body).not.toContain(secret);
    expect(logged).toHaveLength(1);
  });
});

describe('hostile query values', () => {
  it('answers 400, not 500, for times beyond any date', async () => {
    const app = createApp({ store });
    for (const query of ['from=99999999999999999999999', 'to=9223372036854775808', 'from=8640000000000001']) {
      const answer = await app.request(`/analytics/cache_effectiveness?${query}`);
      expect(answer.status, query).toBe(400);
      expect((await answer.json()).error).toBe('invalid_query');
    }
    expect((await app.request('/analytics/cache_effectiveness?from=8640000000000000')).status).toBe(200);
  });
});

describe('load bounds', () => {
  it('answers 503 with Retry-After beyond the concurrency bound, and serves again after', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'skills') return async () => gate.then(() => target.skills());
        return Reflect.get(target, property, receiver);
      },
    });
    const app = createApp({ store: slow, maxConcurrentRequests: 2 });
    const first = app.request('/analytics/skills');
    const second = app.request('/analytics/skills?session=s-alpha');
    const third = await app.request('/analytics/cache_breaks');
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('1');
    release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect((await app.request('/analytics/cache_breaks')).status).toBe(200);
  });

  it('serves from the worker thread and sees events added after an answer was cached', async () => {
    const server = await startServer({ store, port: 0 });
    try {
      const read = async () => (await (await fetch(`${server.url}/analytics/cache_effectiveness`)).json()).overall.requests;
      const before = await read();
      expect(before).toBe((await store.cacheEffectiveness()).overall.requests);
      expect(await read()).toBe(before);
      const [usage] = sampleEvents().filter((event) => event.type === 'usage.recorded');
      await store.append({ ...usage!, sessionId: 'late-session', seq: 0 });
      expect(await read()).toBe(before + 1);
    } finally {
      await server.close();
    }
  });
});
