import { describe, expect, it } from 'vitest';
import { convertToOpenAIChat } from './convert-request.js';
import { fixtureSession, plainChat, toolLoop, withImages, withReasoning } from './test-support/fixtures.js';

describe('convertToOpenAIChat', () => {
  it('plain chat: system parts, canonical tool schemas, tail merged into the user message', async () => {
    const { body, metadata } = convertToOpenAIChat(plainChat('gpt-4.1'));
    await expect(JSON.stringify(body, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.plain-chat-system-parts-canonical-tool-schemas-tail-merged-i.json',
    );
    expect(metadata).toEqual({ breakpoints: [], padding: null, warnings: [] });
  });

  it('tool loop with parallel calls on GPT-5.6: breakpoints at zone ends, tail as a trailing developer message', async () => {
    const { body, metadata } = convertToOpenAIChat(toolLoop('gpt-5.6'));
    await expect(JSON.stringify(body.messages, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.tool-loop-with-parallel-calls-on-gpt-5-6-breakpoints-at-zone.json',
    );
    expect(body.prompt_cache_options).toEqual({ mode: 'explicit' });
    // Recorded with OpenAI's own lifetime for explicit breakpoints, not Anthropic's 5m.
    expect(metadata.breakpoints.map((breakpoint) => [breakpoint.path, breakpoint.zone, breakpoint.ttl])).toEqual([
      ['system[1]', 'global', '30m'],
      ['system[2]', 'session', '30m'],
      ['messages[2].content[1].content[0]', 'history', '30m'],
    ]);
    expect(body.messages.at(-1)?.role).toBe('developer');
  });

  it('images: image_url parts for users, a placeholder (and a warning) in tool messages', async () => {
    const { body, metadata } = convertToOpenAIChat(withImages('gpt-4o'));
    await expect(JSON.stringify(body.messages.slice(1), null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.images-image-url-parts-for-users-a-placeholder-and-a-warning.json',
    );
    expect(metadata.warnings).toEqual([
      {
        code: 'image-as-text',
        path: 'messages[2].content[0]',
        message:
          'messages[2].content[0]: image in a tool result replaced by a text placeholder (Chat Completions tool messages are text-only)',
      },
    ]);
  });

  it('reasoning: thinking is not sent to Chat Completions, and the drop is reported', () => {
    const { body, metadata } = convertToOpenAIChat(withReasoning('gpt-5.2'));
    expect(JSON.stringify(body)).not.toContain('missing file');
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_r', type: 'function', function: { name: 'read_file', arguments: '{"path":"test.ts"}' } }],
    });
    expect(metadata.warnings[0]?.code).toBe('thinking-not-sent');
    expect(metadata.warnings[0]?.message).toMatch(/thinking blocks are not sent/);
  });

  it('moves the history breakpoint off the final user message when a tail item precedes its text', () => {
    const { metadata } = convertToOpenAIChat(plainChat('gpt-5.6'));
    // messages[2] gets "Skill matched" merged ahead of its text, so next turn it changes: mark the reply before it.
    expect(metadata.breakpoints.at(-1)?.path).toBe('messages[1].content[0]');
  });

  it('derives prompt_cache_key from the session, and lets the caller override or drop it', () => {
    const request = plainChat('gpt-4.1');
    expect(convertToOpenAIChat(request).body.prompt_cache_key).toBe('session-1');
    expect(convertToOpenAIChat(request, { promptCacheKey: 'tenant-a' }).body.prompt_cache_key).toBe('tenant-a');
    expect(convertToOpenAIChat(request, { promptCacheKey: (r) => `k-${r.model}` }).body.prompt_cache_key).toBe('k-gpt-4.1');
    expect('prompt_cache_key' in convertToOpenAIChat(request, { promptCacheKey: null }).body).toBe(false);
    const long = fixtureSession('gpt-4.1', { id: 'x'.repeat(80) });
    long.session.appendUserText('hi');
    const key = convertToOpenAIChat(long.request()).body.prompt_cache_key!;
    expect(key).toMatch(/^cachet-[0-9a-f]{40}$/);
    expect(key.length).toBeLessThanOrEqual(64);
  });

  it('sends prompt_cache_retention only where the model table allows it', () => {
    expect(convertToOpenAIChat(plainChat('gpt-4.1'), { promptCacheRetention: '24h' }).body.prompt_cache_retention).toBe('24h');
    const refused = convertToOpenAIChat(plainChat('gpt-4o'), { promptCacheRetention: '24h' });
    expect(refused.body.prompt_cache_retention).toBeUndefined();
    expect(refused.metadata.warnings[0]?.code).toBe('retention-omitted');
    expect(refused.metadata.warnings[0]?.message).toMatch(/prompt_cache_retention "24h" omitted: gpt-4o accepts in_memory/);
  });

  it('implicit breakpoint mode leaves prompt_cache_options out; breakpoints off places none', () => {
    const implicit = convertToOpenAIChat(toolLoop('gpt-5.6'), { breakpointMode: 'implicit' });
    expect(implicit.body.prompt_cache_options).toBeUndefined();
    expect(implicit.metadata.breakpoints).toHaveLength(3);
    const off = convertToOpenAIChat(toolLoop('gpt-5.6'), { breakpoints: 'off' });
    expect(JSON.stringify(off.body)).not.toContain('prompt_cache_breakpoint');
    expect(off.body.prompt_cache_options).toBeUndefined();
  });

  it('can put the tail of a normal turn in a trailing system message instead', () => {
    const { body } = convertToOpenAIChat(plainChat('gpt-4.1'), { tailInTurn: 'trailing-system' });
    expect(body.messages.at(-2)).toEqual({ role: 'user', content: [{ type: 'text', text: 'And the tests?' }] });
    expect(body.messages.at(-1)).toEqual({
      role: 'system',
      content: 'Skill matched: testing.\n\n[current time] 2026-11-21T12:00:00Z\n\nRecall: note 1.',
    });
  });

  it('maps generation parameters, dropping sampling for reasoning models', () => {
    const fixture = fixtureSession('gpt-4.1');
    fixture.session.setParams({
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['END'],
      toolChoice: { type: 'any' },
      parallelToolCalls: false,
    });
    fixture.session.appendUserText('hi');
    const { body } = convertToOpenAIChat(fixture.request());
    expect([body.temperature, body.top_p, body.stop, body.tool_choice, body.parallel_tool_calls]).toEqual([
      0.2,
      0.9,
      ['END'],
      'required',
      false,
    ]);
    const reasoning = fixtureSession('gpt-5.2');
    reasoning.session.setParams({ temperature: 0.2, effort: 'low', toolChoice: { type: 'tool', name: 'grep' } });
    reasoning.session.appendUserText('hi');
    const converted = convertToOpenAIChat(reasoning.request());
    expect(converted.body.temperature).toBeUndefined();
    expect(converted.body.reasoning_effort).toBe('low');
    expect(converted.body.tool_choice).toEqual({ type: 'function', function: { name: 'grep' } });
    expect(converted.metadata.warnings).toContainEqual({
      code: 'sampling-dropped',
      message: 'params: temperature/topP dropped (reasoning models reject sampling parameters)',
    });
  });
});
