import { describe, expect, it } from 'vitest';
import { openAiTokenCounter } from '../../tokens/openai-token-counter.js';
import { cacheHorizon, cacheLifetimeMs, minimumPrefixTokens, unitTokens } from './cache-rules.js';
import { detectWireFormat, normalizeWireBody } from './normalize-wire-body.js';

describe('detectWireFormat', () => {
  it('recognises each wire API by its shape', () => {
    expect(detectWireFormat({ model: 'gpt-5', input: 'hi' })).toBe('openai-responses');
    expect(detectWireFormat({ model: 'claude-sonnet-4-5', messages: [] })).toBe('anthropic');
    expect(detectWireFormat({ model: 'x', system: 'be brief', messages: [] })).toBe('anthropic');
    expect(detectWireFormat({ model: 'anthropic/claude-sonnet-4.5', messages: [] })).toBe('openrouter');
    expect(detectWireFormat({ model: 'qwen3', messages: [], cache_prompt: true })).toBe('openai-compatible');
    expect(detectWireFormat({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] })).toBe('openai-chat');
  });
});

describe('normalizeWireBody', () => {
  it('orders Anthropic units model → tools → system → message-level params → blocks, markers out of the bytes', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      tools: [{ name: 't', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
      system: [{ type: 'text', text: 'persona', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [{ role: 'user', content: 'hi' }],
    };
    const normalized = normalizeWireBody(body);
    expect(normalized.units.map((unit) => unit.path)).toEqual([
      'model',
      'tools[0]',
      'system[0]',
      'tool_choice',
      'thinking',
      'output_config',
      'images',
      'messages[0].content',
    ]);
    expect(normalized.units[1]).toMatchObject({
      zone: 'tools',
      breakpoint: '5m',
      text: '{"name":"t","input_schema":{"type":"object"}}',
    });
    expect(normalized.units[2]).toMatchObject({ zone: 'system', breakpoint: '1h' });
    // A string content equals the same text as one text block.
    const asBlocks = normalizeWireBody({ ...body, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(asBlocks.units.at(-1)?.text).toBe(normalized.units.at(-1)?.text);
    expect(cacheHorizon(normalized)).toBe(3);
    expect(cacheLifetimeMs(normalized)).toBe(60 * 60_000);
    expect(minimumPrefixTokens(normalized)).toBe(1024);
  });

  it('warns about markers the API rejects', () => {
    const normalized = normalizeWireBody({
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'thinking', thinking: 'x', signature: 's', cache_control: { type: 'ephemeral' } }],
        },
      ],
    });
    expect(normalized.warnings[0]).toMatch(/not allowed on thinking blocks/);
  });

  it('splits Chat messages into parts, reasoning and tool calls, leading system messages in the system zone', () => {
    const normalized = normalizeWireBody(
      {
        model: 'qwen3',
        messages: [
          { role: 'system', content: 'sys' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'image_url', image_url: { url: 'x' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            reasoning_content: 'think',
            tool_calls: [{ id: '1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: '1', content: 'out' },
        ],
      },
      'openai-compatible',
    );
    const messages = normalized.units.filter((unit) => unit.zone !== 'params');
    expect(messages.map((unit) => [unit.zone, unit.path, unit.kind])).toEqual([
      ['system', 'messages[0].content', 'text'],
      ['messages', 'messages[1].content[0]', 'text'],
      ['messages', 'messages[1].content[1]', 'image'],
      ['messages', 'messages[2].reasoning_content', 'thinking'],
      ['messages', 'messages[2].tool_calls[0]', 'tool_use'],
      ['messages', 'messages[3].content', 'tool_result'],
    ]);
    expect(cacheLifetimeMs(normalized)).toBe(Number.POSITIVE_INFINITY);
  });

  it('reads OpenAI retention and explicit breakpoints', () => {
    const normalized = normalizeWireBody({
      model: 'gpt-5.6',
      prompt_cache_retention: '24h',
      prompt_cache_options: { mode: 'explicit' },
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'sys', prompt_cache_breakpoint: { mode: 'explicit' } }] },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(normalized).toMatchObject({ retention: '24h', promptCacheMode: 'explicit' });
    const marked = normalized.units.find((unit) => unit.breakpoint);
    expect(marked).toMatchObject({ path: 'messages[0].content[0]', breakpoint: '30m', text: '{"type":"text","text":"sys"}' });
    expect(cacheHorizon(normalized)).toBe(normalized.units.indexOf(marked!) + 1);
    expect(cacheLifetimeMs(normalized)).toBe(24 * 60 * 60_000);
  });
});

describe('Gemini tool results', () => {
  it('counts a { output } response as the result text, not its escaped JSON', () => {
    const output = 'line "one"\n\tline two\n'.repeat(40);
    const body = {
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'run', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'run', response: { output } } }] },
      ],
    };
    const counter = openAiTokenCounter('o200k_base');
    const result = normalizeWireBody(body, 'gemini').units.find((unit) => unit.kind === 'tool_result');
    expect(result).toBeDefined();
    const asText = counter.countBlock({ type: 'tool_result', toolUseId: '', content: [{ type: 'text', text: output }] });
    expect(unitTokens(result!, counter)).toBe(asText);
    expect(counter.countText(JSON.stringify({ output }))).toBeGreaterThan(asText);
  });
});
