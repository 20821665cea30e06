import { describe, expect, it } from 'vitest';
import { backfillReasoning } from '../../compaction/thinking-cleaner.js';
import type { ThinkingConfig } from '../../model/request.js';
import { assemble } from '../../session/assemble.js';
import { fixtureSession } from '../anthropic/test-support/fixtures.js';
import { convertToDeepSeek, type DeepSeekBody } from './convert-request.js';
import { deepSeekThinks } from './models.js';

/**
 * DeepSeek's own check in thinking mode (api-docs.deepseek.com/guides/thinking_mode): an
 * assistant message that called tools must carry `reasoning_content` (400 "Missing
 * `reasoning_content` field in the assistant message at message index N"); in a request with
 * tools, every assistant message must (DeepSeek V4).
 */
function deepSeekRefusal(body: DeepSeekBody): string | null {
  if (!deepSeekThinks(body)) return null;
  const index = body.messages.findIndex(
    (message) =>
      message.role === 'assistant' &&
      message.reasoning_content === undefined &&
      (message.tool_calls !== undefined || (body.tools?.length ?? 0) > 0),
  );
  return index < 0 ? null : `Missing \`reasoning_content\` field in the assistant message at message index ${index}`;
}

/** A coding turn written without reasoning (by another model, say), then a plain answer and a new question. */
function session(model: string, thinking?: ThinkingConfig) {
  const result = fixtureSession({ model, tail: [], ...(thinking ? { params: { thinking } } : {}) });
  result.appendUserText('Is a.ts exported?');
  result.append({ role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.ts' } }] });
  result.append({
    role: 'user',
    content: [{ type: 'tool_result', toolUseId: 'call_1', content: [{ type: 'text', text: 'x' }] }],
  });
  result.append({ role: 'assistant', content: [{ type: 'text', text: 'Yes, it is.' }] });
  result.appendUserText('And b.ts?');
  return result;
}

describe('convertToDeepSeek in thinking mode', () => {
  it('sends the empty reasoning the thinking cleaner back-fills after a switch to a thinking model (it was dropped: a 400)', () => {
    const parent = session('deepseek-chat');
    const { history } = backfillReasoning(parent.history);
    expect(history[1]?.content[0]).toEqual({ type: 'thinking', thinking: '' });
    parent.rewriteHistory(history, 'compaction:thinking');
    parent.setModel('deepseek-reasoner');
    const { body } = convertToDeepSeek(assemble(parent));
    expect(deepSeekRefusal(body)).toBeNull();
    expect(body.messages.find((message) => message.role === 'assistant' && message.tool_calls)).toMatchObject({
      reasoning_content: '',
    });
  });

  it.each([
    ['deepseek-reasoner', undefined],
    ['deepseek-v4-flash', undefined],
    ['deepseek-chat', { type: 'enabled', budgetTokens: 2_048 }],
  ] as const)(
    'on %s (thinking %o) gives every assistant message reasoning_content in a request with tools',
    (model, thinking) => {
      const { body } = convertToDeepSeek(assemble(session(model, thinking)));
      expect(deepSeekThinks(body)).toBe(true);
      expect(deepSeekRefusal(body)).toBeNull();
      const assistants = body.messages.filter((message) => message.role === 'assistant');
      expect(assistants.map((message) => message.reasoning_content)).toEqual(['', '']);
    },
  );

  it('leaves non-thinking bodies alone, and sends the session’s thinking switch DeepSeek would otherwise ignore', () => {
    const plain = convertToDeepSeek(assemble(session('deepseek-chat'))).body;
    expect(plain.thinking).toBeUndefined();
    expect(plain.messages.some((message) => message.role === 'assistant' && 'reasoning_content' in message)).toBe(false);
    const off = convertToDeepSeek(assemble(session('deepseek-v4-flash', { type: 'disabled' })));
    expect(off.body.thinking).toEqual({ type: 'disabled' });
    expect(deepSeekThinks(off.body)).toBe(false);
    expect(off.body.messages.some((message) => message.role === 'assistant' && 'reasoning_content' in message)).toBe(false);
    const on = convertToDeepSeek(assemble(session('deepseek-chat', { type: 'enabled', budgetTokens: 2_048 })));
    expect(on.body.thinking).toEqual({ type: 'enabled' });
    expect(on.metadata.warnings.map((warning) => warning.code)).toContain('thinking-budget-dropped');
  });
});
