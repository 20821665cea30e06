import { describe, expect, it } from 'vitest';
import { anthropicHistory, anthropicRequest, chatRequest, TOOLS_ANTHROPIC } from '../test-support/break-fixtures.js';
import { diffWireBodies } from './diff-wire-bodies.js';

const reply = { role: 'assistant', content: [{ type: 'text', text: 'Looking at it.' }] };
const userTurn = (text: string) => ({ role: 'user', content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] });
const firstUser = { role: 'user', content: [{ type: 'text', text: 'Fix the failing test.' }] };

describe('diffWireBodies', () => {
  it('reports nothing when b only appends (the healthy case)', () => {
    const a = anthropicRequest({});
    const b = anthropicRequest({ messages: [firstUser, reply, userTurn('Now run it.')] });
    expect(diffWireBodies(a, b)).toMatchObject({ identical: false, firstDivergence: null, cause: null });
    expect(diffWireBodies(a, structuredClone(a))).toMatchObject({ identical: true, firstDivergence: null, cause: null });
  });

  it('ignores a turn tail dropped from the last user message', () => {
    const withTail = {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the failing test.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: '[memory] the test lives in src/a.test.ts' },
      ],
    };
    const a = anthropicRequest({ messages: [withTail] });
    const b = anthropicRequest({ messages: [firstUser, reply, userTurn('Thanks.')] });
    expect(diffWireBodies(a, b).firstDivergence).toBeNull();
  });

  it('accepts a trailing tail message replaced by the reply, but not a dropped user input', () => {
    const base = [
      { role: 'system', content: 'You build apps.' },
      { role: 'user', content: 'make a page' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'a', content: 'ok' },
    ];
    const a = { model: 'qwen3-8b', messages: [...base, { role: 'system', content: '[current time] 10:00' }] };
    const b = {
      model: 'qwen3-8b',
      messages: [...base, { role: 'assistant', content: 'done' }, { role: 'user', content: 'next' }],
    };
    const report = diffWireBodies(a, b, { format: 'openai-compatible' });
    expect(report).toMatchObject({
      firstDivergence: null,
      cause: null,
      droppedTail: { messageIndex: 4, text: '[current time] 10:00' },
    });
    const asked = {
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'x' },
        { role: 'assistant', content: 'hi' },
        { role: 'user', content: 'question' },
      ],
    };
    const lost = {
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'x' },
        { role: 'assistant', content: 'hi' },
        { role: 'assistant', content: 'answer' },
      ],
    };
    expect(diffWireBodies(asked, lost).cause).toBe('history-edited');
  });

  it('names a clock in the system prompt with the block, byte offset and excerpts', () => {
    const a = anthropicRequest({ time: '2026-11-21T10:00:00Z' });
    const b = anthropicRequest({ time: '2026-11-21T10:05:00Z' });
    const report = diffWireBodies(a, b);
    expect(report.cause).toBe('clock');
    const json = JSON.stringify({ type: 'text', text: 'Current time: 2026-11-21T10:00:00Z. Project: cachet.' });
    expect(report.firstDivergence).toEqual({
      zone: 'system',
      path: 'system[1]',
      byteOffset: json.indexOf('10:00') + 4, // '10:0' is shared; '0' vs '5' differ
      before: expect.stringContaining('10:00:00Z'),
      after: expect.stringContaining('10:05:00Z'),
    });
  });

  it('counts the byte offset in UTF-8 bytes', () => {
    const a = anthropicRequest({ persona: 'Réponds en français. Version 1' });
    const b = anthropicRequest({ persona: 'Réponds en français. Version 2' });
    const report = diffWireBodies(a, b);
    const json = JSON.stringify({ type: 'text', text: 'Réponds en français. Version 1' });
    const charIndex = json.indexOf('1"');
    expect(report.firstDivergence?.byteOffset).toBe(Buffer.byteLength(json.slice(0, charIndex)));
    expect(report.firstDivergence?.byteOffset).toBe(charIndex + 2);
    expect(report.cause).toBe('system-changed');
  });

  it('tells reordered tools from changed tools', () => {
    const a = anthropicRequest({});
    const swapped = anthropicRequest({ tools: [TOOLS_ANTHROPIC[1], TOOLS_ANTHROPIC[0]] });
    expect(diffWireBodies(a, swapped)).toMatchObject({
      cause: 'tool-order',
      firstDivergence: { zone: 'tools', path: 'tools[0]' },
    });
    const changed = anthropicRequest({
      tools: [TOOLS_ANTHROPIC[0], { ...TOOLS_ANTHROPIC[1], description: 'Write or create a file.' }],
    });
    expect(diffWireBodies(a, changed)).toMatchObject({
      cause: 'tools-changed',
      firstDivergence: { zone: 'tools', path: 'tools[1]' },
    });
    const added = anthropicRequest({
      tools: [...TOOLS_ANTHROPIC, { name: 'grep', description: 'Search.', input_schema: { type: 'object' } }],
    });
    expect(diffWireBodies(a, added)).toMatchObject({
      cause: 'tools-changed',
      firstDivergence: { zone: 'tools', path: 'tools[2]' },
    });
  });

  it('names an edited history message', () => {
    const history = anthropicHistory(6);
    const edited = structuredClone(history) as Array<{ content: Array<{ text: string }> }>;
    edited[1]!.content[0]!.text = 'message 1: [compacted]';
    const report = diffWireBodies(anthropicRequest({ messages: history }), anthropicRequest({ messages: edited }));
    expect(report).toMatchObject({
      cause: 'history-edited',
      firstDivergence: { zone: 'messages', path: 'messages[1].content[0]' },
    });
  });

  it('names a model switch and a changed tool_choice', () => {
    expect(diffWireBodies(anthropicRequest({}), anthropicRequest({ model: 'claude-opus-4-8' }))).toMatchObject({
      cause: 'model-changed',
      firstDivergence: { zone: 'params', path: 'model' },
    });
    expect(diffWireBodies(anthropicRequest({}), anthropicRequest({ extra: { tool_choice: { type: 'any' } } }))).toMatchObject({
      cause: 'params-changed',
      firstDivergence: { zone: 'params', path: 'tool_choice' },
    });
  });

  it('ignores changes after the last breakpoint of a (nothing there was cached)', () => {
    const history = anthropicHistory(4, false);
    (history[1] as { content: Array<Record<string, unknown>> }).content[0]!.cache_control = { type: 'ephemeral' };
    const edited = structuredClone(history) as Array<{ content: Array<{ text: string }> }>;
    edited[3]!.content[0]!.text = 'rewritten';
    expect(
      diffWireBodies(anthropicRequest({ messages: history }), anthropicRequest({ messages: edited })).firstDivergence,
    ).toBeNull();
    edited[1]!.content[0]!.text = 'rewritten too';
    expect(diffWireBodies(anthropicRequest({ messages: history }), anthropicRequest({ messages: edited })).cause).toBe(
      'history-edited',
    );
  });

  it('works on OpenAI Chat bodies: system messages are the system zone', () => {
    const a = chatRequest({});
    const b = chatRequest({ system: 'You are helpful. Answer in English.' });
    expect(diffWireBodies(a, b)).toMatchObject({
      cause: 'system-changed',
      firstDivergence: { zone: 'system', path: 'messages[0].content' },
    });
    const clock = chatRequest({
      system: (a.messages as Array<{ content: string }>)[0]!.content.replace('Friday, 21 Nov', 'Saturday, 22 Nov'),
    });
    expect(diffWireBodies(a, clock).cause).toBe('clock');
    const appended = chatRequest({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'more' },
      ],
    });
    expect(diffWireBodies(a, appended).firstDivergence).toBeNull();
    expect(diffWireBodies(a, chatRequest({ extra: { prompt_cache_key: 'other' } }))).toMatchObject({
      cause: 'params-changed',
      firstDivergence: { path: 'prompt_cache_key' },
    });
  });

  it('works on Responses bodies', () => {
    const body = (instructions: string, input: unknown[]) => ({ model: 'gpt-5', instructions, input });
    const a = body('Be brief. Date: 2026-11-21', [{ role: 'user', content: 'hi' }]);
    expect(diffWireBodies(a, body('Be brief. Date: 2026-11-22', [{ role: 'user', content: 'hi' }]))).toMatchObject({
      cause: 'clock',
      firstDivergence: { zone: 'system', path: 'instructions' },
    });
    const grown = body('Be brief. Date: 2026-11-21', [
      { role: 'user', content: 'hi' },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
    ]);
    expect(diffWireBodies(a, grown).firstDivergence).toBeNull();
    const edited = body('Be brief. Date: 2026-11-21', [{ role: 'user', content: 'hello' }]);
    expect(diffWireBodies(grown, edited)).toMatchObject({
      cause: 'history-edited',
      firstDivergence: { path: 'input[0].content' },
    });
  });

  it('works on OpenRouter bodies (Anthropic routes honour cache_control horizons)', () => {
    const body = (tools: unknown[]) => ({
      model: 'anthropic/claude-sonnet-4.5',
      tools,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: 'hi' },
      ],
    });
    const toolA = { type: 'function', function: { name: 'a', parameters: { type: 'object' } } };
    const toolB = { type: 'function', function: { name: 'b', parameters: { type: 'object' } } };
    expect(diffWireBodies(body([toolA, toolB]), body([toolB, toolA]))).toMatchObject({
      cause: 'tool-order',
      firstDivergence: { zone: 'tools' },
    });
  });

  it('works on OpenAI-compatible bodies', () => {
    const body = (messages: unknown[]) => ({
      model: 'qwen3-8b',
      cache_prompt: true,
      messages: [{ role: 'system', content: 'You build apps.' }, ...messages],
    });
    const a = body([
      { role: 'user', content: 'make a page' },
      { role: 'assistant', content: 'ok', reasoning_content: 'think' },
      { role: 'user', content: 'more' },
    ]);
    const b = body([
      { role: 'user', content: 'make a page' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'more' },
    ]);
    expect(diffWireBodies(a, b)).toMatchObject({
      cause: 'history-edited',
      firstDivergence: { path: 'messages[2].reasoning_content' },
    });
  });

  it('refuses bodies that are not requests', () => {
    expect(() => diffWireBodies([], {})).toThrow(/JSON object/);
    expect(() => diffWireBodies({ model: 'x' }, { model: 'x' })).toThrow(/messages/);
  });
});
