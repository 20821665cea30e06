import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../events/event-bus.js';
import { CANNED_REPLY, startCaptureServer } from '../../integrations/ai-sdk/test-support/capture-server.js';
import { TEST_KEY } from '../test-support/proxy-harness.js';
import { startProxy } from './start-proxy.js';

/** An upstream that holds each reply until the test releases it; `arrived` settles when a request is in. */
async function heldUpstream() {
  let arrive: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = await startCaptureServer(CANNED_REPLY, {
    beforeReply: () => {
      arrive();
      return released;
    },
  });
  return { url: server.origin, arrived, release, close: server.close };
}

const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hi.' }] });
const send = (url: string) =>
  fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
    body,
  });

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});
describe('cachet proxy: close()', () => {
  it('lets an exchange in flight finish and be recorded, and refuses new connections meanwhile', async () => {
    const upstream = await heldUpstream();
    cleanup.push(upstream.close);
    const bus = new EventBus();
    const forwarded: string[] = [];
    bus.on('proxy.forwarded', (event) => forwarded.push(event.sessionId));
    const proxy = await startProxy({ upstream: upstream.url, bus });
    const reply = send(proxy.url);
    await upstream.arrived;
    const closed = proxy.close();
    await expect(send(proxy.url)).rejects.toThrow();
    upstream.release();
    const response = await reply;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ content: [{ text: 'Done.' }] });
    await closed;
    expect(forwarded).toHaveLength(1);
  });

  it('cuts off an exchange still running after the grace period, and still resolves', async () => {
    const upstream = await heldUpstream();
    cleanup.push(async () => {
      upstream.release();
      await upstream.close();
    });
    const proxy = await startProxy({ upstream: upstream.url, bus: new EventBus() });
    const reply = send(proxy.url);
    await upstream.arrived;
    await proxy.close({ graceMs: 0 });
    await expect(reply).rejects.toThrow();
  });
});
