import { afterEach, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { validateAnthropicBody } from '../emulate/validate-anthropic-body.js';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { joinedBody } from './body-pieces.js';
import type { Conversation } from './conversation-tracker.js';
import { planRequest } from './plan-request.js';

const persona = 'You are Forge. '.repeat(200);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function body(turn: number, messages: string): Uint8Array {
  // Odd spacing and key order: everything but the moved text must reach the upstream as sent.
  return encoder.encode(
    `{"model":"claude-sonnet-4-5",  "max_tokens":100,"system":${JSON.stringify(`${persona}\n\nCurrent time: 2026-11-27T10:0${turn}:00Z`)},"messages":${messages}}`,
  );
}

describe('cachet proxy --plan --volatile auto', () => {
  it('moves the clock into the turn’s user message, keeps it there, and leaves every other byte as sent', () => {
    const conversation = { key: 'c', lastResponseId: null, lastBreakpointPosition: null } as unknown as Conversation;
    const plan = { volatile: 'auto' as const, diagnostics: false };
    const first = planRequest('anthropic', body(0, '[{"role":"user","content":"Fix the build."}]'), plan, () => conversation);
    const second = planRequest(
      'anthropic',
      body(
        1,
        '[{"role":"user","content":"Fix the build."},{"role":"assistant","content":"Done."},{"content":[{"type":"text","text":"Now the docs."}],"role":"user"}]',
      ),
      plan,
      () => conversation,
    );
    if (first.kind !== 'planned' || second.kind !== 'planned') throw new Error('not planned');
    const sent = JSON.parse(decoder.decode(joinedBody(second.sent)));
    expect(validateAnthropicBody(sent)).toBeNull();
    expect(sent.system.map((block: { text: string }) => block.text).join('')).toBe(persona);
    expect(JSON.stringify(sent.messages[0].content)).toContain('Current time: 2026-11-27T10:00:00Z');
    expect(JSON.stringify(sent.messages[2].content)).toContain('Current time: 2026-11-27T10:01:00Z');
    expect(decoder.decode(joinedBody(second.sent))).toContain('"model":"claude-sonnet-4-5",  "max_tokens":100');
    expect(decoder.decode(joinedBody(second.sent))).toContain('{"content":[{"type":"text","text":"Now the docs."}');
    // volatile.moved, as the drop-ins publish it: on sight at turn 1, then when the moved text changed.
    expect(first.volatileMoved).toMatchObject({
      turn: 1,
      step: 0,
      moved: [{ path: 'system[0].paragraph[1]', cause: 'clock', detectedBy: 'sight' }],
      savedTokens: 0,
    });
    expect(second.volatileMoved).toMatchObject({ turn: 2, step: 0, moved: [{ cause: 'clock' }] });
    expect(second.volatileMoved?.savedTokens).toBeGreaterThan(0);
    const sameTurn = planRequest(
      'anthropic',
      body(
        1,
        '[{"role":"user","content":"Fix the build."},{"role":"assistant","content":"Done."},{"content":[{"type":"text","text":"Now the docs."}],"role":"user"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]',
      ),
      plan,
      () => conversation,
    );
    if (sameTurn.kind !== 'planned') throw new Error('not planned');
    // The tool step of turn 2 moves the same text: nothing new to report.
    expect(sameTurn.volatileMoved).toBeNull();
    expect(validateAnthropicBody(JSON.parse(decoder.decode(joinedBody(sameTurn.sent))))).toBeNull();
    const firstSent = JSON.parse(decoder.decode(joinedBody(first.sent)));
    expect(firstSent.messages[0].content.map((block: { text: string }) => block.text)).toEqual([
      'Fix the build.',
      'Current time: 2026-11-27T10:00:00Z',
    ]);
  });

  it('without --volatile the system prompt is not touched', () => {
    const conversation = { key: 'c', lastResponseId: null, lastBreakpointPosition: null } as unknown as Conversation;
    const planned = planRequest(
      'anthropic',
      body(0, '[{"role":"user","content":"Hi"}]'),
      { diagnostics: false },
      () => conversation,
    );
    if (planned.kind !== 'planned') throw new Error('not planned');
    expect(planned.volatileMoved).toBeNull();
    expect(decoder.decode(joinedBody(planned.sent))).toContain('Current time');
    expect(JSON.parse(decoder.decode(joinedBody(planned.sent))).messages[0].content).toEqual([
      { type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } },
    ]);
  });

  describe('through the proxy', () => {
    let harness: Harness | null = null;
    afterEach(async () => {
      await harness?.close();
      harness = null;
    });

    it('publishes volatile.moved under the conversation’s session, once per change of what moved', async () => {
      harness = await startHarness({ proxy: { plan: { volatile: 'auto' } } });
      const send = (bytes: Uint8Array) =>
        fetch(`${harness!.proxy.url}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
          body: decoder.decode(bytes),
        });
      expect((await send(body(0, '[{"role":"user","content":"Fix the build."}]'))).status).toBe(200);
      const second = body(
        1,
        '[{"role":"user","content":"Fix the build."},{"role":"assistant","content":"Done."},{"role":"user","content":"Docs."}]',
      );
      expect((await send(second)).status).toBe(200);
      await harness.flush();
      const moved = (await harness.store.events({ types: ['volatile.moved'] })) as CachetEvent<'volatile.moved'>[];
      expect(moved.map((event) => [event.payload.turn, event.payload.moved[0]?.cause])).toEqual([
        [1, 'clock'],
        [2, 'clock'],
      ]);
      const usage = await harness.store.events({ types: ['usage.recorded'] });
      expect(new Set(moved.map((event) => event.sessionId))).toEqual(new Set(usage.map((event) => event.sessionId)));
    });
  });
});
