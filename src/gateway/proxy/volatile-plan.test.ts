import { describe, expect, it } from 'vitest';
import { validateAnthropicBody } from '../emulate/validate-anthropic-body.js';
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
    const sent = JSON.parse(decoder.decode(second.sent));
    expect(validateAnthropicBody(sent)).toBeNull();
    expect(sent.system.map((block: { text: string }) => block.text).join('')).toBe(persona);
    expect(JSON.stringify(sent.messages[0].content)).toContain('Current time: 2026-11-27T10:00:00Z');
    expect(JSON.stringify(sent.messages[2].content)).toContain('Current time: 2026-11-27T10:01:00Z');
    expect(decoder.decode(second.sent)).toContain('"model":"claude-sonnet-4-5",  "max_tokens":100');
    expect(decoder.decode(second.sent)).toContain('{"content":[{"type":"text","text":"Now the docs."}');
    const firstSent = JSON.parse(decoder.decode(first.sent));
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
    expect(decoder.decode(planned.sent)).toContain('Current time');
    expect(JSON.parse(decoder.decode(planned.sent)).messages[0].content).toEqual([
      { type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } },
    ]);
  });
});
