import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { thinkingToolLoop } from '../anthropic/test-support/fixtures.js';
import { convertToGemini } from './convert-request.js';

describe('convertToGemini', () => {
  it('carries a thought signature on the part after the thought, and drops the thought text', () => {
    const { body } = convertToGemini(thinkingToolLoop({ model: 'gemini-2.5-pro' }));
    const model = (body.contents as Array<{ role: string; parts: unknown[] }>)[1]!;
    expect(model).toMatchInlineSnapshot(`
      {
        "parts": [
          {
            "functionCall": {
              "args": {
                "path": "a.ts",
              },
              "id": "call_t",
              "name": "read_file",
            },
            "thoughtSignature": "sig-EqQBCkgIARABGAIiQ",
          },
        ],
        "role": "model",
      }
    `);
    expect(body.config?.thinkingConfig).toEqual({ thinkingBudget: 2048, includeThoughts: true });
  });

  it('leaves out system instruction, tools and cached messages when reading an explicit cache; ignores a stale one', () => {
    const request = thinkingToolLoop({ model: 'gemini-2.5-pro' });
    const plain = convertToGemini(request);
    const cached = convertToGemini(request, {
      explicitCache: { name: 'cachedContents/x', staticHash: plain.metadata.staticHash, messageCount: 0 },
    });
    expect(cached.body.config).toEqual({
      maxOutputTokens: 1024,
      thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
      cachedContent: 'cachedContents/x',
    });
    const stale = convertToGemini(request, { explicitCache: { name: 'cachedContents/x', staticHash: 'other', messageCount: 0 } });
    expect(stale.body.config?.cachedContent).toBeUndefined();
    expect(stale.body.config?.systemInstruction).toEqual(plain.body.config?.systemInstruction);
    expect(plain.body.config?.systemInstruction).toBeDefined();
    expect(stale.metadata.warnings[0]?.message).toMatch(/holds other static content/);
  });

  it('warns, as its siblings do, when the tail needs a user message of its own', () => {
    const request = thinkingToolLoop({ model: 'gemini-2.5-flash' });
    const endsWithReply = {
      ...request,
      messages: [...request.messages, { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Done.' }] }],
      tail: { ...request.tail, items: [{ kind: 'time' as const, text: 'Now: 10:00', position: 'end' as const }] },
    };
    const { body, metadata } = convertToGemini(endsWithReply);
    expect(metadata.warnings.map((warning) => warning.code)).toContain('tail-as-user-message');
    expect((body.contents as unknown[]).at(-1)).toEqual({ role: 'user', parts: [{ text: 'Now: 10:00' }] });
    const plain = convertToGemini(request);
    expect(plain.metadata.warnings.map((warning) => warning.code)).not.toContain('tail-as-user-message');
  });

  it('names a tool result whose call is missing', () => {
    const request = thinkingToolLoop({ model: 'gemini-2.5-flash' });
    const broken = {
      ...request,
      messages: request.messages.map((message) =>
        message.role === 'user'
          ? {
              ...message,
              content: message.content.map((block) =>
                block.type === 'tool_result' ? { ...block, toolUseId: 'nowhere' } : block,
              ),
            }
          : message,
      ),
    };
    expect(() => convertToGemini(broken)).toThrow(ValidationError);
    expect(() => convertToGemini(broken)).toThrow(/messages\[2\]\.content\[0\]\.toolUseId/);
  });
});
