import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTraceStore } from '../trace/open-trace-store.js';
import type { TraceStore } from '../trace/trace-store.js';
import { isLoopbackHost } from './loopback.js';
import { ServeConfigError, startServer } from './start-server.js';

let store: TraceStore;
beforeAll(async () => {
  store = await openTraceStore(':memory:');
});
afterAll(() => store.close());

describe('startServer', () => {
  it('listens on 127.0.0.1 by default and answers over real HTTP', async () => {
    const server = await startServer({ store, port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${server.url}/sessions`);
      expect(await response.json()).toEqual({ sessions: [] });
    } finally {
      await server.close();
    }
  });

  it('refuses a non-loopback host without a token', async () => {
    await expect(startServer({ store, host: '0.0.0.0', port: 0 })).rejects.toThrow(ServeConfigError);
    await expect(startServer({ store, host: '0.0.0.0', port: 0 })).rejects.toThrow(/CACHET_SERVE_TOKEN/);
  });

  it('binds elsewhere with a token and then requires it', async () => {
    const token = 'serve-test-token-0123456789';
    const server = await startServer({ store, host: '0.0.0.0', port: 0, token });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/sessions`)).status).toBe(401);
      expect((await fetch(`${base}/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses a short token', async () => {
    await expect(startServer({ store, port: 0, token: 'short' })).rejects.toThrow(/at least 16/);
  });
});

describe('isLoopbackHost', () => {
  it('accepts only loopback names and addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com', '128.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
  });
});
