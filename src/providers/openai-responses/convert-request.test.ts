import { describe, expect, it } from 'vitest';
import { fixtureSession, plainChat, toolLoop, withImages, withReasoning } from '../openai-chat/test-support/fixtures.js';
import { convertToOpenAIResponses } from './convert-request.js';
import { reasoningItemFromThinking, thinkingFromReasoningItem } from './reasoning-items.js';

describe('convertToOpenAIResponses', () => {
  it('plain chat: system input message, function tools, tail merged into the user message', async () => {
    const { body } = convertToOpenAIResponses(plainChat('gpt-4.1'));
    await expect(JSON.stringify(body, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.plain-chat-system-input-message-function-tools-tail-merged-i.json',
    );
  });

  it('tool loop with parallel calls on GPT-5.6: function calls, outputs, breakpoints, trailing developer tail', async () => {
    const { body, metadata } = convertToOpenAIResponses(toolLoop('gpt-5.6'));
    await expect(JSON.stringify(body.input, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.tool-loop-with-parallel-calls-on-gpt-5-6-function-calls-outp.json',
    );
    expect(metadata.breakpoints.map((breakpoint) => breakpoint.path)).toEqual([
      'system[1]',
      'system[2]',
      'messages[2].content[1].content[0]',
    ]);
    expect([body.store, body.include, body.prompt_cache_options]).toEqual([
      false,
      ['reasoning.encrypted_content'],
      { mode: 'explicit' },
    ]);
  });

  it('images: input_image in user messages and in function call outputs (no placeholder needed)', async () => {
    const { body, metadata } = convertToOpenAIResponses(withImages('gpt-4o'));
    await expect(JSON.stringify(Array.isArray(body.input) ? body.input.slice(1) : body.input, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.images-input-image-in-user-messages-and-in-function-call-out.json',
    );
    expect(metadata.warnings).toEqual([]);
  });

  it('reasoning: a signed thinking block goes back as the reasoning item it came from, before its function call', () => {
    const { body, metadata } = convertToOpenAIResponses(withReasoning('gpt-5.2'), { reasoningSummary: 'auto' });
    const input = body.input as Array<{ type?: string }>;
    expect(input.slice(2, 4)).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'The test imports a missing file.' }],
        encrypted_content: 'gAAAAencrypted',
      },
      { type: 'function_call', call_id: 'call_r', name: 'read_file', arguments: '{"path":"test.ts"}' },
    ]);
    expect(body.reasoning).toEqual({ summary: 'auto' });
    expect(metadata.warnings).toEqual([]);
  });

  it('leaves out thinking that OpenAI did not sign, with a warning', () => {
    const fixture = fixtureSession('gpt-5.2');
    fixture.session.appendUserText('hi');
    fixture.session.append({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'anthropic thought', signature: 'EqQBCkYIBx' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'hello' },
      ],
    });
    fixture.session.appendUserText('again');
    const { body, metadata } = convertToOpenAIResponses(fixture.request());
    expect(JSON.stringify(body)).not.toContain('anthropic thought');
    expect(metadata.warnings).toHaveLength(2);
  });

  it('round-trips reasoning items through canonical thinking blocks unchanged', () => {
    const item = {
      id: 'rs_9',
      summary: [{ type: 'summary_text' as const, text: 'Plan.' }],
      encrypted_content: 'enc:with:colons',
    };
    const block = thinkingFromReasoningItem(item);
    expect(reasoningItemFromThinking(block)).toEqual({ type: 'reasoning', ...item });
    expect(thinkingFromReasoningItem({ ...item, encrypted_content: null }).signature).toBeUndefined();
    expect(reasoningItemFromThinking({ type: 'thinking', thinking: 'x', signature: 'openai-reasoning:v1:rs_1:' })).toBeNull();
  });

  it('warns about stop sequences, which the Responses API does not take', () => {
    const fixture = fixtureSession('gpt-4.1');
    fixture.session.setParams({ stopSequences: ['END'], temperature: 0 });
    fixture.session.appendUserText('hi');
    const { body, metadata } = convertToOpenAIResponses(fixture.request());
    expect(body.temperature).toBe(0);
    expect(metadata.warnings).toEqual([
      { code: 'stop-dropped', message: 'params: stopSequences dropped (the Responses API has no stop parameter)' },
    ]);
  });
});
