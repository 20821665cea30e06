import { describe, expect, it } from 'vitest';
import { fixtureSession, plainChat, toolLoop, withImages, withReasoning } from '../openai-chat/test-support/fixtures.js';
import { convertToOpenAIResponses } from './convert-request.js';
import { reasoningItemFromThinking, thinkingFromReasoningItem } from './reasoning-items.js';

describe('convertToOpenAIResponses', () => {
  it('plain chat: system input message, function tools, tail merged into the user message', () => {
    const { body } = convertToOpenAIResponses(plainChat('gpt-4.1'));
    expect(body).toMatchInlineSnapshot(`
      {
        "input": [
          {
            "content": [
              {
                "text": "You are a careful coding agent.",
                "type": "input_text",
              },
              {
                "text": "Prefer small, reviewable changes.",
                "type": "input_text",
              },
              {
                "text": "Project: demo. Session session-1.",
                "type": "input_text",
              },
            ],
            "role": "system",
            "type": "message",
          },
          {
            "content": [
              {
                "text": "What does the build script do?",
                "type": "input_text",
              },
            ],
            "role": "user",
            "type": "message",
          },
          {
            "content": "It compiles TypeScript.",
            "role": "assistant",
            "type": "message",
          },
          {
            "content": [
              {
                "text": "Skill matched: testing.",
                "type": "input_text",
              },
              {
                "text": "And the tests?",
                "type": "input_text",
              },
              {
                "text": "[current time] 2026-11-21T12:00:00Z",
                "type": "input_text",
              },
              {
                "text": "Recall: note 1.",
                "type": "input_text",
              },
            ],
            "role": "user",
            "type": "message",
          },
        ],
        "max_output_tokens": 1024,
        "model": "gpt-4.1",
        "prompt_cache_key": "session-1",
        "prompt_cache_retention": "24h",
        "store": false,
        "tools": [
          {
            "description": "Read a file from the workspace",
            "name": "read_file",
            "parameters": {
              "properties": {
                "path": {
                  "type": "string",
                },
              },
              "required": [
                "path",
              ],
              "type": "object",
            },
            "strict": false,
            "type": "function",
          },
          {
            "description": "Search files for a pattern",
            "name": "grep",
            "parameters": {
              "properties": {
                "glob": {
                  "type": "string",
                },
                "pattern": {
                  "type": "string",
                },
              },
              "type": "object",
            },
            "strict": false,
            "type": "function",
          },
        ],
      }
    `);
  });

  it('tool loop with parallel calls on GPT-5.6: function calls, outputs, breakpoints, trailing developer tail', () => {
    const { body, metadata } = convertToOpenAIResponses(toolLoop('gpt-5.6'));
    expect(body.input).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "You are a careful coding agent.",
              "type": "input_text",
            },
            {
              "prompt_cache_breakpoint": {
                "mode": "explicit",
              },
              "text": "Prefer small, reviewable changes.",
              "type": "input_text",
            },
            {
              "prompt_cache_breakpoint": {
                "mode": "explicit",
              },
              "text": "Project: demo. Session session-1.",
              "type": "input_text",
            },
          ],
          "role": "developer",
          "type": "message",
        },
        {
          "content": [
            {
              "text": "Check a.ts and find TODOs.",
              "type": "input_text",
            },
          ],
          "role": "user",
          "type": "message",
        },
        {
          "content": "Reading both files.",
          "role": "assistant",
          "type": "message",
        },
        {
          "arguments": "{"path":"a.ts"}",
          "call_id": "call_a",
          "name": "read_file",
          "type": "function_call",
        },
        {
          "arguments": "{"glob":"*.ts","pattern":"TODO"}",
          "call_id": "call_b",
          "name": "grep",
          "type": "function_call",
        },
        {
          "call_id": "call_a",
          "output": [
            {
              "text": "export const a = 1;",
              "type": "input_text",
            },
          ],
          "type": "function_call_output",
        },
        {
          "call_id": "call_b",
          "output": [
            {
              "prompt_cache_breakpoint": {
                "mode": "explicit",
              },
              "text": "b.ts:3: TODO",
              "type": "input_text",
            },
          ],
          "type": "function_call_output",
        },
        {
          "content": [
            {
              "text": "[current time] 2026-11-21T12:00:00Z

      Recall: note 1.",
              "type": "input_text",
            },
          ],
          "role": "developer",
          "type": "message",
        },
      ]
    `);
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

  it('images: input_image in user messages and in function call outputs (no placeholder needed)', () => {
    const { body, metadata } = convertToOpenAIResponses(withImages('gpt-4o'));
    expect(Array.isArray(body.input) ? body.input.slice(1) : body.input).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "What is in this picture?",
              "type": "input_text",
            },
            {
              "detail": "auto",
              "image_url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==",
              "type": "input_image",
            },
          ],
          "role": "user",
          "type": "message",
        },
        {
          "arguments": "{"path":"shot.png"}",
          "call_id": "call_s",
          "name": "read_file",
          "type": "function_call",
        },
        {
          "call_id": "call_s",
          "output": [
            {
              "text": "screenshot",
              "type": "input_text",
            },
            {
              "detail": "auto",
              "image_url": "https://example.com/shot.png",
              "type": "input_image",
            },
          ],
          "type": "function_call_output",
        },
        {
          "content": [
            {
              "text": "[current time] 2026-11-21T12:00:00Z

      Recall: note 1.",
              "type": "input_text",
            },
          ],
          "role": "system",
          "type": "message",
        },
      ]
    `);
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
