import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicTurn } from '../test-support/sessions.js';
import { createEmulatorApp } from './create-emulator-app.js';
import { parseClockHeader } from './parse-clock-header.js';
import { type RunningEmulator, startEmulator } from './start-emulator.js';

const NOW = Date.UTC(2026, 10, 23, 10, 0, 0);
let running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.map((emulator) => emulator.close()));
  running = [];
});

const post = (app: ReturnType<typeof createEmulatorApp>['app'], path: string, body: string, headers = {}) =>
  app.request(path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('cachet emulate on hostile input (#21 items 3 and 6)', () => {
  it('answers a body nested 100,000 deep with a 400 naming the path, not a 500 or a stack overflow', async () => {
    const { app } = createEmulatorApp({ now: () => NOW });
    const deep = `{"model":"claude-sonnet-5","max_tokens":10,"messages":[{"role":"user","content":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`;
    for (const path of ['/v1/messages', '/v1/chat/completions', '/v1/responses']) {
      const response = await post(app, path, deep);
      expect(response.status).toBe(400);
      const error = (await response.json()) as { error: { type: string; message: string } };
      expect(error.error.type).toBe('invalid_request_error');
      expect(error.error.message).toMatch(/^body\.messages\[0\]\.content.*nested at most 256 levels deep/);
    }
    // The emulator still answers ordinary requests afterwards.
    const ordinary = await post(app, '/v1/messages', JSON.stringify(anthropicTurn(1)));
    expect(ordinary.status).toBe(200);
  });

  it.each(['-1', '1e20', '99999999999999999', '8640000000000001', 'yesterday', '2026-13-45T99:00:00Z', ' ', '0x10'])(
    'refuses x-cachet-clock %j with 400 naming the header',
    async (clock) => {
      const { app } = createEmulatorApp({ now: () => NOW });
      const response = await post(app, '/v1/messages', JSON.stringify(anthropicTurn(1)), { 'x-cachet-clock': clock });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^x-cachet-clock: expected/);
    },
  );

  it('accepts the clock forms it documents', () => {
    expect(parseClockHeader('0')).toBe(0);
    expect(parseClockHeader(String(NOW))).toBe(NOW);
    expect(parseClockHeader('2026-11-23T10:00:00Z')).toBe(NOW);
    expect(parseClockHeader('2026-11-23T11:00:00.000+01:00')).toBe(NOW);
    expect(parseClockHeader('8640000000000000')).toBe(8.64e15);
  });

  it('answers 413 to a chunked body past the limit while the client is still sending, without buffering it', async () => {
    const maxBodyBytes = 1024 * 1024;
    const emulator = await startEmulator({ now: () => NOW, maxBodyBytes });
    running.push(emulator);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const planned = 150 * 1024 * 1024;
    const outcome = await new Promise<{ status: number; sent: number; text: string }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const request = httpRequest(
        `${emulator.url}/v1/messages`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (response) => {
          answered = true;
          let text = '';
          response.on('data', (data: Buffer) => {
            text += data.toString();
          });
          response.on('end', () => {
            request.destroy();
            resolve({ status: response.statusCode ?? 0, sent, text });
          });
        },
      );
      request.on('error', (error) => {
        if (!answered) reject(error);
      });
      const pump = () => {
        while (!answered && sent < planned) {
          sent += chunk.length;
          if (!request.write(chunk)) {
            request.once('drain', pump);
            return;
          }
        }
        if (!answered) request.end();
      };
      pump();
    });
    expect(outcome.status).toBe(413);
    expect(outcome.text).toMatch(/exceeds the maximum size of 1048576 bytes/);
    // Answered long before the client could send 150 MB: the body was refused as it came, not after.
    expect(outcome.sent).toBeLessThan(planned / 4);
    expect(emulator.received).toEqual([]);
  });

  it('bounds the Responses store by bytes, drops the oldest first and counts the evictions', async () => {
    const responsesStoreBytes = 64 * 1024;
    const { app, stats } = createEmulatorApp({ now: () => NOW, responsesStoreBytes });
    const ids: string[] = [];
    for (let turn = 0; turn < 40; turn++) {
      const response = await post(
        app,
        '/v1/responses',
        JSON.stringify({ model: 'gpt-4.1', input: `turn ${turn}: ${'context '.repeat(1000)}` }),
      );
      expect(response.status).toBe(200);
      ids.push(((await response.json()) as { id: string }).id);
    }
    const held = stats().responses;
    expect(held.maxBytes).toBe(responsesStoreBytes);
    expect(held.bytes).toBeLessThanOrEqual(responsesStoreBytes);
    expect(held.entries).toBeGreaterThan(0);
    expect(held.entries + held.evictions).toBe(40);
    const continueFrom = (id: string) =>
      post(app, '/v1/responses', JSON.stringify({ model: 'gpt-4.1', input: 'and?', previous_response_id: id }));
    expect((await continueFrom(ids[0]!)).status).toBe(400);
    expect((await continueFrom(ids.at(-1)!)).status).toBe(200);
    // A response larger than the whole budget is not kept (and counted), rather than evicting everything.
    const before = stats().responses;
    const huge = await post(app, '/v1/responses', JSON.stringify({ model: 'gpt-4.1', input: 'x'.repeat(100_000) }));
    expect(huge.status).toBe(200);
    expect(stats().responses.evictions).toBe(before.evictions + 1);
    expect((await continueFrom(ids.at(-1)!)).status).toBe(200);
  });
});
