import { describe, expect, it } from 'vitest';
import { fixtureSession, plainChat, toolLoop } from '../openai-chat/test-support/fixtures.js';
import { openRouterCapabilities } from './capabilities.js';
import { convertToOpenRouter } from './convert-request.js';

describe('convertToOpenRouter', () => {
  it('Anthropic route, tool loop: the Anthropic plan as cache_control, tail as a user message Anthropic merges into the tool-result turn', async () => {
    const { body, metadata } = convertToOpenRouter(toolLoop('anthropic/claude-sonnet-4.5'));
    await expect(JSON.stringify(body, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.anthropic-route-tool-loop-the-anthropic-plan-as-cache-contro.json',
    );
    // The session static zone is too small to earn its own breakpoint (as on the Anthropic adapter).
    expect(metadata.breakpoints.map((breakpoint) => [breakpoint.path, breakpoint.ttl, breakpoint.reason])).toEqual([
      ['system[1]', '5m', 'global-static'],
      ['messages[2].content[1].content[0]', '5m', 'history'],
    ]);
  });

  it('Anthropic route, plain chat: markers never on the merged tail, 1h TTL by option', () => {
    const { body } = convertToOpenRouter(plainChat('anthropic/claude-opus-4.5'), { cacheTtl: '1h' });
    const marked = JSON.stringify(body.messages).match(/"cache_control":\{"type":"ephemeral","ttl":"1h"\}/g);
    expect(marked).toHaveLength(2);
    const last = body.messages.at(-1)!;
    expect(JSON.stringify(last)).not.toContain('cache_control');
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'It compiles TypeScript.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    });
  });

  it('other routes: no markers; OpenAI routes take a trailing system tail, unknown upstreams get it appended to the last tool result', () => {
    const openai = convertToOpenRouter(toolLoop('openai/gpt-5.2')).body;
    expect(JSON.stringify(openai)).not.toContain('cache_control');
    expect(openai.messages.at(-1)).toEqual({ role: 'system', content: '[current time] 2026-11-21T12:00:00Z\n\nRecall: note 1.' });
    const other = convertToOpenRouter(toolLoop('meta-llama/llama-3.3-70b-instruct')).body;
    expect(other.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_b',
      content: [
        { type: 'text', text: 'b.ts:3: TODO' },
        { type: 'text', text: '[current time] 2026-11-21T12:00:00Z' },
        { type: 'text', text: 'Recall: note 1.' },
      ],
    });
  });

  it('sends session_id for sticky routing (overridable, or left out)', () => {
    const request = plainChat('openai/gpt-4o');
    expect(convertToOpenRouter(request).body.session_id).toBe('session-1');
    expect(convertToOpenRouter(request, { sessionId: 'tenant-7' }).body.session_id).toBe('tenant-7');
    expect('session_id' in convertToOpenRouter(request, { sessionId: null }).body).toBe(false);
  });

  it('replays signed Anthropic thinking as reasoning_details, never as a marked part', () => {
    const fixture = fixtureSession('anthropic/claude-sonnet-4.5');
    fixture.session.appendUserText('Fix it.');
    fixture.session.append({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Read first.', signature: 'EqQBCkYIBxgCKkB' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
      ],
    });
    fixture.session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'toolu_1', content: [{ type: 'text', text: 'ok' }] }],
    });
    const { body } = convertToOpenRouter(fixture.request());
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
      reasoning_details: [
        { type: 'reasoning.text', text: 'Read first.', signature: 'EqQBCkYIBxgCKkB', format: 'anthropic-claude-v1' },
        { type: 'reasoning.encrypted', data: 'EmwKAhgBEgy', format: 'anthropic-claude-v1' },
      ],
    });
  });

  it('declares prompt caching false on every route, while naming how the route caches', () => {
    const anthropic = openRouterCapabilities('anthropic/claude-sonnet-4.5');
    expect([anthropic.promptCaching, anthropic.cachingMode, anthropic.maxBreakpoints]).toEqual([false, 'explicit', 4]);
    const other = openRouterCapabilities('deepseek/deepseek-chat');
    expect([other.promptCaching, other.cachingMode]).toEqual([false, 'automatic']);
  });
});

describe('convertToOpenRouter finalRequest (Anthropic routes)', () => {
  it('keeps the history marker on the entry the previous request wrote, instead of writing one nobody will read', () => {
    const fixture = fixtureSession('anthropic/claude-sonnet-4.5');
    const longFile = 'export const value = 1;\n'.repeat(400);
    const toolStep = (id: string) => {
      fixture.session.append({
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'read_file', input: { path: `${id}.ts` } }],
      });
      fixture.session.append({
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: id, content: [{ type: 'text', text: longFile }] }],
      });
    };
    const historyPath = (metadata: { breakpoints: Array<{ path: string; reason: string }> }) =>
      metadata.breakpoints.filter((breakpoint) => breakpoint.reason === 'history').map((breakpoint) => breakpoint.path);
    fixture.session.appendUserText('Read the first file.');
    toolStep('call_1');
    const first = convertToOpenRouter(fixture.request());
    expect(historyPath(first.metadata)).toEqual(['messages[2].content[0].content[0]']);
    toolStep('call_2');
    const request = fixture.request();
    const usual = convertToOpenRouter(request, { previous: first.metadata.cacheState });
    const final = convertToOpenRouter(request, { previous: first.metadata.cacheState, finalRequest: true });
    expect(historyPath(usual.metadata)).toEqual(['messages[4].content[0].content[0]']);
    expect(historyPath(final.metadata)).toEqual(historyPath(first.metadata));
    const secondResult = (body: typeof final.body) =>
      JSON.stringify(body.messages.find((message) => 'tool_call_id' in message && message.tool_call_id === 'call_2'));
    expect(secondResult(usual.body)).toContain('cache_control');
    expect(secondResult(final.body)).not.toContain('cache_control');
  });
});
