import { afterEach, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const CANNED_REPLY = JSON.stringify({
  id: 'msg_canned',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-5',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 10, output_tokens: 1 },
});

/** An upstream that keeps the exact bytes it received and answers every request the same. */
function recordingUpstream() {
  const received: Uint8Array[] = [];
  const fetchUpstream: typeof fetch = async (_input, init) => {
    received.push(new Uint8Array(init?.body as Uint8Array));
    return new Response(CANNED_REPLY, { headers: { 'content-type': 'application/json' } });
  };
  return { received, fetchUpstream };
}

const post = (url: string, body: Uint8Array<ArrayBuffer>) =>
  fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
    body,
  });

describe('cachet proxy --plan forwards the client’s bytes with only cache fields edited', () => {
  it('big integers, duplicate keys and invalid UTF-8 reach the upstream as sent', async () => {
    const upstream = recordingUpstream();
    harness = await startHarness({ proxy: { plan: true, fetch: upstream.fetchUpstream } });
    const head = new TextEncoder().encode(
      '{"model":"claude-sonnet-5","max_tokens":10,"messages":[{"role":"user","content":[' +
        '{"type":"tool_result","tool_use_id":"t","content":"x"},' +
        '{"type":"text","text":"n=12345678901234567890123 ',
    );
    const tail = new TextEncoder().encode(
      '","cache_control":{"type":"ephemeral"}}]}],"metadata":{"user_id":"dup-keys","v":12345678901234567890123,"k":1,"k":2}}',
    );
    const body = new Uint8Array([...head, 0xff, 0xfe, ...tail]);
    const reply = await post(harness.proxy.url, body);
    expect(reply.status).toBe(200);
    const sent = upstream.received[0]!;
    const asLatin1 = Buffer.from(sent).toString('latin1');
    expect(asLatin1).toContain('"metadata":{"user_id":"dup-keys","v":12345678901234567890123,"k":1,"k":2}');
    expect(asLatin1).toContain('n=12345678901234567890123 \xff\xfe"');
    expect(asLatin1).toContain('"diagnostics":{"previous_message_id":null}');
    // Only the plan's fields differ: the bytes up to the edited block are the client's.
    expect(Buffer.from(sent.subarray(0, head.length)).equals(Buffer.from(head))).toBe(true);
  });

  it('a body nested 100,000 deep is forwarded unchanged with a warning, never a 500', async () => {
    const upstream = recordingUpstream();
    const warnings: string[] = [];
    harness = await startHarness({
      proxy: { plan: true, fetch: upstream.fetchUpstream, onWarning: (message) => warnings.push(message) },
    });
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const text =
      '{"model":"claude-sonnet-5","max_tokens":10,"messages":[{"role":"user","content":"hi"},' +
      `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":${deep}}]}]}`;
    const body = new TextEncoder().encode(text);
    const reply = await post(harness.proxy.url, body);
    expect(reply.status).toBe(200);
    expect(Buffer.from(upstream.received[0]!).equals(Buffer.from(body))).toBe(true);
    expect(warnings).toEqual(['cachet proxy --plan: the body nests deeper than 512 levels: forwarded unchanged']);
    await harness.flush();
    const events = (await harness.store.events({ types: ['warning.raised'] })) as CachetEvent<'warning.raised'>[];
    expect(events.map((event) => event.payload.source)).toEqual(['proxy.plan']);
  });

  it('a body that is not JSON is forwarded unchanged (the upstream answers it)', async () => {
    const upstream = recordingUpstream();
    harness = await startHarness({ proxy: { plan: true, fetch: upstream.fetchUpstream } });
    const body = new TextEncoder().encode('{"model": oops');
    expect((await post(harness.proxy.url, body)).status).toBe(200);
    expect(Buffer.from(upstream.received[0]!).equals(Buffer.from(body))).toBe(true);
  });
});
