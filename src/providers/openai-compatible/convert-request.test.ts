import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fixtureSession, plainChat, toolLoop, withReasoning } from '../openai-chat/test-support/fixtures.js';
import { renderChatTemplate } from './chat-template.js';
import { convertToOpenAICompatible } from './convert-request.js';
import { createOpenAICompatibleAdapter } from './index.js';
import { resolveCompat } from './models.js';
import { slotFor } from './place-breakpoints.js';

describe('resolveCompat', () => {
  it('detects by family and server, and lets caller overrides win', () => {
    const qwen = resolveCompat('Qwen3-8B-Q4_K_M.gguf', { server: 'llama.cpp' });
    expect([
      qwen.family,
      qwen.flags.tailInToolLoop,
      qwen.flags.toolCallContent,
      qwen.flags.reasoning.send,
      qwen.flags.cachePrompt,
    ]).toEqual(['qwen3', 'trailing-system', 'empty-string', 'never', true]);
    expect(resolveCompat('deepseek-r1-distill', { server: 'vllm' }).flags).toMatchObject({
      tailInToolLoop: 'merge-into-last-input',
      reasoning: { send: 'tool-call-turns', field: 'reasoning_content' },
      cachePrompt: false,
    });
    expect(resolveCompat('mistral-small-3.2').flags.tailInToolLoop).toBe('merge-into-last-input');
    const overridden = resolveCompat('qwen3:8b', { server: 'ollama', overrides: { tailInToolLoop: 'merge-into-last-input' } });
    expect(overridden.flags.tailInToolLoop).toBe('merge-into-last-input');
    expect(overridden.sources.at(-1)).toBe('caller overrides');
    const custom = resolveCompat('acme-coder-7b', {
      families: [
        { models: ['acme'], family: 'acme', flags: { tailInToolLoop: 'trailing-system' }, source: 'mine', checked: '2026-11-21' },
      ],
    });
    expect([custom.family, custom.flags.tailInToolLoop]).toEqual(['acme', 'trailing-system']);
    expect(resolveCompat('unknown-model').family).toBe('unknown');
  });
});

describe('convertToOpenAICompatible', () => {
  it('Qwen3 on llama.cpp, tool loop: string contents, "" for tool-call messages, trailing system tail, cache_prompt', async () => {
    const { body } = convertToOpenAICompatible(toolLoop('qwen3-8b'), { server: 'llama.cpp' });
    await expect(JSON.stringify(body, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.qwen3-on-llama-cpp-tool-loop-string-contents-for-tool-call-m.json',
    );
  });

  it('Qwen3, normal turn: tail merged into the user message, matched skill before the text', () => {
    const { body } = convertToOpenAICompatible(plainChat('qwen3-8b'));
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Skill matched: testing.\n\nAnd the tests?\n\n[current time] 2026-11-21T12:00:00Z\n\nRecall: note 1.',
    });
  });

  it('DeepSeek: reasoning_content sent back on tool-call turns; tail appended to the last tool result (its template hoists system messages)', () => {
    const { body } = convertToOpenAICompatible(withReasoning('deepseek-v3.2'), { server: 'vllm' });
    expect(body.messages.slice(2)).toMatchInlineSnapshot(`
      [
        {
          "content": null,
          "reasoning_content": "The test imports a missing file.",
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{"path":"test.ts"}",
                "name": "read_file",
              },
              "id": "call_r",
              "type": "function",
            },
          ],
        },
        {
          "content": "import x from "./x";

      [current time] 2026-11-21T12:00:00Z

      Recall: note 1.",
          "role": "tool",
          "tool_call_id": "call_r",
        },
      ]
    `);
    expect(body.cache_prompt).toBeUndefined();
  });

  it('never ends a tool loop with a user message, whatever the family with a tool role', () => {
    for (const model of ['qwen3-8b', 'deepseek-v3', 'mistral-small', 'gpt-oss-20b', 'llama-3.1-8b', 'something-else']) {
      const roles = convertToOpenAICompatible(toolLoop(model)).body.messages.map((message) => message.role);
      expect(roles.slice(roles.lastIndexOf('tool')), model).not.toContain('user');
    }
  });

  it('Gemma: tool turns as text (tool_code / tool_output blocks), roles alternating, the tail after the results', () => {
    const { body } = convertToOpenAICompatible(toolLoop('gemma-3-27b'), { server: 'llama.cpp' });
    const roles = body.messages.map((message) => message.role);
    expect(roles).not.toContain('tool');
    expect(body.messages.some((message) => message.role === 'assistant' && 'tool_calls' in message)).toBe(false);
    // After the system message, user and assistant alternate, as the Gemma 3 template demands.
    expect(roles.slice(1)).toEqual(roles.slice(1).map((_, index) => (index % 2 === 0 ? 'user' : 'assistant')));
    const calls = body.messages.find((message) => message.role === 'assistant' && String(message.content).includes('tool_code'));
    expect(calls?.content).toBe(
      'Reading both files.\n\n```tool_code\n{"name":"read_file","arguments":{"path":"a.ts"}}\n```\n\n```tool_code\n{"name":"grep","arguments":{"glob":"*.ts","pattern":"TODO"}}\n```',
    );
    const last = String(body.messages.at(-1)!.content);
    expect(last.startsWith('```tool_output\nexport const a = 1;\n```\n\n```tool_output\nb.ts:3: TODO\n```')).toBe(true);
    // The tail follows the results, outside their blocks.
    expect(last.slice(last.lastIndexOf('```'))).toMatch(/Recall: note/);
  });

  it("Llama 3.x: parallel calls go one per message, each followed by its result (Meta's template raises on more)", () => {
    // The rule of Meta's Llama 3.1 template, restated: one tool call per assistant message.
    const oneCallTemplate =
      "{% for message in messages %}{% if message.tool_calls %}{% if message.tool_calls|length != 1 %}{{ raise_exception('This model only supports single tool-calls at once!') }}{% endif %}{{ message.tool_calls[0].function.name }};{% else %}{{ message.role }}:{{ message.content }};{% endif %}{% endfor %}";
    const request = toolLoop('llama-3.1-8b-instruct');
    const { body, metadata } = convertToOpenAICompatible(request, { server: 'llama.cpp' });
    const shape = body.messages.map((message) =>
      message.role === 'assistant'
        ? `assistant[${(message.tool_calls ?? []).map((call) => call.id).join(',')}]`
        : message.role === 'tool'
          ? `tool:${message.tool_call_id}`
          : message.role,
    );
    expect(shape.filter((entry) => entry.startsWith('assistant') || entry.startsWith('tool'))).toEqual([
      'assistant[call_a]',
      'tool:call_a',
      'assistant[call_b]',
      'tool:call_b',
    ]);
    expect(metadata.warnings.map((warning) => warning.code)).toContain('parallel-tool-calls-split');
    expect(() => renderChatTemplate(body, oneCallTemplate)).not.toThrow();
    // Qwen3 takes parallel calls as they are, and the same template would reject them.
    const qwen = convertToOpenAICompatible(toolLoop('qwen3-8b'), { server: 'llama.cpp' });
    expect(qwen.body.messages.find((message) => message.role === 'assistant')?.tool_calls).toHaveLength(2);
    expect(() => renderChatTemplate(qwen.body, oneCallTemplate)).toThrow(/single tool-calls/);
    expect(qwen.metadata.warnings.map((warning) => warning.code)).not.toContain('parallel-tool-calls-split');
  });

  it('pins a session to a llama.cpp slot and carries a sticky session key when configured', () => {
    const adapter = createOpenAICompatibleAdapter({ server: 'llama.cpp', overrides: { slotCount: 4, sessionKeyField: 'user' } });
    const { body } = adapter.convertRequest(plainChat('qwen3-8b'));
    // The slot rule, computed here from its definition: the first 32 bits of SHA-256(session id), mod slots.
    const digest = createHash('sha256').update('session-1').digest('hex');
    expect(body.id_slot).toBe(Number.parseInt(digest.slice(0, 8), 16) % 4);
    expect(body.user).toBe('session-1');
    expect(new Set(Array.from({ length: 64 }, (_, index) => slotFor(`s-${index}`, 4)))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('uses max_completion_tokens when the flags say so', () => {
    const fixture = fixtureSession('qwen3-8b');
    fixture.session.appendUserText('hi');
    const { body } = convertToOpenAICompatible(fixture.request(), { overrides: { maxTokensField: 'max_completion_tokens' } });
    expect([body.max_tokens, body.max_completion_tokens]).toEqual([undefined, 1024]);
  });
});
