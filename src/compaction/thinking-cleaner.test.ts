import { describe, expect, it } from 'vitest';
import type { Message } from '../model/content.js';
import { validatePairing } from '../model/validate.js';
import { backfillReasoning, cleanThinking, thinkingRuleFor } from './thinking-cleaner.js';

const signed = { type: 'thinking' as const, thinking: 'signed reasoning', signature: 'c2lnbmF0dXJl' };
const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'first' }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'old plain reasoning' },
      { type: 'text', text: 'answer one' },
    ],
  },
  { role: 'user', content: [{ type: 'text', text: 'second' }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'reasoning before a call' },
      { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'x' }] }] },
  {
    role: 'assistant',
    content: [signed, { type: 'thinking', thinking: 'duplicate reasoning_content' }, { type: 'text', text: 'answer two' }],
  },
  { role: 'user', content: [{ type: 'text', text: 'third' }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'current turn' },
      { type: 'text', text: 'answer three' },
    ],
  },
];

describe('thinking cleaner', () => {
  it('reasoning-content style drops reasoning before the last user message, except on tool-call messages', () => {
    const { history: cleaned, changed } = cleanThinking(history, 'reasoning-content');
    expect(changed).toBe(true);
    expect(cleaned[1]?.content).toEqual([{ type: 'text', text: 'answer one' }]);
    expect(cleaned[3]).toBe(history[3]); // tool calls keep their reasoning (the API requires it)
    expect(cleaned[5]?.content).toEqual([{ type: 'text', text: 'answer two' }]); // signed block removed whole, not edited
    expect(cleaned[7]).toBe(history[7]); // the current turn is kept
    validatePairing(cleaned, 'messages', { allowPendingAtEnd: false });
  });

  it('signed-blocks style keeps thinking and drops an unsigned duplicate beside a signed block', () => {
    const { history: cleaned } = cleanThinking(history, 'signed-blocks');
    expect(cleaned[1]).toBe(history[1]);
    expect(cleaned[5]?.content[0]).toBe(signed); // the very same object: byte-for-byte
    expect(cleaned[5]?.content).toHaveLength(2);
  });

  it('touches nothing before fromIndex, so a ride-along never moves the first change earlier', () => {
    const { history: cleaned } = cleanThinking(history, 'reasoning-content', 4);
    expect(cleaned.slice(0, 4)).toEqual(history.slice(0, 4));
    expect(cleaned[5]).not.toBe(history[5]);
  });

  it('back-fills empty reasoning on tool-call messages after a switch to a thinking model', () => {
    const plain: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'x' }] }] },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ];
    const { history: filled, changed } = backfillReasoning(plain);
    expect(changed).toBe(true);
    expect(filled[1]?.content[0]).toEqual({ type: 'thinking', thinking: '' });
    expect(filled[3]).toBe(plain[3]);
    expect(backfillReasoning(filled).changed).toBe(false);
  });

  it('looks styles up in a data table', () => {
    expect(thinkingRuleFor('claude-sonnet-4-5')?.style).toBe('signed-blocks');
    expect(thinkingRuleFor('deepseek-reasoner')?.requiresReasoningOnToolCalls).toBe(true);
    expect(thinkingRuleFor('kimi-k2-thinking')?.style).toBe('reasoning-content');
    expect(thinkingRuleFor('gpt-4o')).toBeNull();
  });
});
