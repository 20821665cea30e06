import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEmulator } from '../emulate/start-emulator.js';
import { RemoteBindingError } from '../listen-policy.js';
import { type RunningProxy, startProxy } from './start-proxy.js';

let proxy: RunningProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  proxy = null;
  vi.restoreAllMocks();
});

/** A POST with any Host header (fetch will not send a foreign one). */
function postWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  const target = new URL(`${url}/v1/messages`);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { host, 'content-type': 'application/json' },
      },
      (incoming) => {
        let body = '';
        incoming.on('data', (chunk) => {
          body += chunk;
        });
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end('{"model":"claude-sonnet-5","max_tokens":1,"messages":[]}');
  });
}

const CANNED = JSON.stringify({ id: 'msg_1', type: 'message', content: [], usage: { input_tokens: 1, output_tokens: 1 } });
const answering: typeof fetch = async () => new Response(CANNED, { headers: { 'content-type': 'application/json' } });

/** Everything written to the console during a test. */
function consoleLines(): string[] {
  const printed: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...parts: unknown[]) => printed.push(parts.map(String).join(' ')));
  }
  return printed;
}

describe('cachet proxy: who may talk to it', () => {
  it('on loopback, answers only loopback Host names (DNS rebinding gets 403 in the provider shape)', async () => {
    proxy = await startProxy({ upstream: 'http://127.0.0.1:9', fetch: answering });
    const port = new URL(proxy.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await postWithHost(proxy.url, host)).status).toBe(200);
    }
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`]) {
      const refused = await postWithHost(proxy.url, host);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    }
  });

  it('refuses a non-loopback interface unless allowed, then warns and answers any Host', async () => {
    await expect(startProxy({ upstream: 'http://127.0.0.1:9', host: '0.0.0.0' })).rejects.toBeInstanceOf(RemoteBindingError);
    const warnings: string[] = [];
    proxy = await startProxy({
      upstream: 'http://127.0.0.1:9',
      host: '0.0.0.0',
      allowRemote: true,
      fetch: answering,
      onWarning: (message) => warnings.push(message),
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('listening on 0.0.0.0');
    const url = `http://127.0.0.1:${proxy.port}`;
    expect((await postWithHost(url, 'proxy.lan:8787')).status).toBe(200);
  });
});

describe('cachet emulate: the same door', () => {
  it('answers only loopback Host names, and refuses a non-loopback interface unless allowed', async () => {
    const emulator = await startEmulator({ provider: 'anthropic' });
    try {
      expect((await postWithHost(emulator.url, `localhost:${emulator.port}`)).status).not.toBe(403);
      const refused = await postWithHost(emulator.url, `rebound.example:${emulator.port}`);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    } finally {
      await emulator.close();
    }
    await expect(startEmulator({ host: '0.0.0.0' })).rejects.toBeInstanceOf(RemoteBindingError);
    const warnings: string[] = [];
    const remote = await startEmulator({ host: '0.0.0.0', allowRemote: true, onWarning: (line) => warnings.push(line) });
    try {
      expect(warnings[0]).toContain('cachet emulate: listening on 0.0.0.0');
      expect((await postWithHost(`http://127.0.0.1:${remote.port}`, 'emulator.lan')).status).not.toBe(403);
    } finally {
      await remote.close();
    }
  });
});

describe('cachet proxy: one line, never a stack trace', () => {
  it('an upstream stream that breaks off: the client sees the reply cut short, the operator one line', async () => {
    const printed = consoleLines();
    const warnings: string[] = [];
    const breaking: typeof fetch = async () => {
      let pulls = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (++pulls > 3) return controller.error(new Error('upstream socket hang up'));
          controller.enqueue(new TextEncoder().encode('event: ping\ndata: {"type":"ping"}\n\n'));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    proxy = await startProxy({ upstream: 'http://127.0.0.1:9', fetch: breaking, onWarning: (line) => warnings.push(line) });
    const reply = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', body: '{"model":"x","messages":[]}' });
    expect(reply.status).toBe(200);
    await expect(reply.text()).rejects.toThrow();
    await vi.waitFor(() => expect(warnings).toHaveLength(1));
    expect(warnings[0]).toMatch(/^cachet proxy: the upstream's reply broke off after \d+ bytes \(upstream socket hang up\)/);
    expect(warnings[0]).not.toContain('\n');
    expect(printed).toEqual([]);
  });

  it('a client that leaves mid-stream or before the headers prints nothing', async () => {
    const printed = consoleLines();
    const ticking: typeof fetch = async (_input, init) => {
      let timer: ReturnType<typeof setInterval> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          timer = setInterval(() => controller.enqueue(new TextEncoder().encode('event: ping\ndata: {}\n\n')), 5);
          init?.signal?.addEventListener('abort', () => {
            clearInterval(timer);
            controller.error(init.signal?.reason);
          });
        },
        cancel: () => clearInterval(timer),
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    proxy = await startProxy({ upstream: 'http://127.0.0.1:9', fetch: ticking });
    const leaving = new AbortController();
    const reply = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', body: '{}', signal: leaving.signal });
    await reply.body!.getReader().read();
    leaving.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await proxy.close();
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    proxy = await startProxy({ upstream: 'http://127.0.0.1:9', fetch: hanging });
    const early = new AbortController();
    const pending = fetch(`${proxy.url}/v1/messages`, { method: 'POST', body: '{}', signal: early.signal }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 50));
    early.abort();
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(printed).toEqual([]);
  });
});
