import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { hasMarkerFindings, validateAnthropicBreakpoints, validateConvertedBreakpoints } from './validate-breakpoints.js';

const mark = { type: 'ephemeral' as const };

describe('validateAnthropicBreakpoints', () => {
  it('accepts four markers in a valid order', () => {
    const body: MessageCreateParamsNonStreaming = {
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      tools: [{ name: 't', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: '1h' } }],
      system: [{ type: 'text', text: 'a', cache_control: mark }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'b', cache_control: mark }] }],
      cache_control: mark,
    };
    expect(validateAnthropicBreakpoints(body)).toEqual([]);
  });

  it('warns about a fifth marker (automatic caching counts), markers on thinking or empty text, and 1h after 5m', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      system: [
        { type: 'text', text: 'a', cache_control: mark },
        { type: 'text', text: '', cache_control: mark },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'b', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's', cache_control: mark }] },
      ],
      cache_control: mark,
    } as unknown as MessageCreateParamsNonStreaming;
    expect(validateAnthropicBreakpoints(body).map((warning) => `${warning.code} ${warning.path}`)).toEqual([
      'not-cacheable system[1]',
      'not-cacheable messages[1].content[0]',
      'too-many-breakpoints system[0], system[1], messages[0].content[0], messages[1].content[0], cache_control',
      'ttl-order messages[0].content[0]',
    ]);
  });

  it('counts markers nested in tool_result content', () => {
    const body: MessageCreateParamsNonStreaming = {
      model: 'm',
      max_tokens: 1,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'x',
              content: [1, 2, 3, 4, 5].map((n) => ({ type: 'text' as const, text: `${n}`, cache_control: mark })),
            },
          ],
        },
      ],
    };
    expect(validateAnthropicBreakpoints(body).map((warning) => warning.code)).toEqual(['too-many-breakpoints']);
  });

  it("finds the same markers in a shared (frozen) content array on every body, at each body's index", () => {
    const content = Object.freeze([
      Object.freeze({ type: 'text' as const, text: '', cache_control: mark }),
      Object.freeze({ type: 'text' as const, text: 'x', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } }),
    ]);
    const body = (leading: number): MessageCreateParamsNonStreaming => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      messages: [
        ...Array.from({ length: leading }, () => ({ role: 'user' as const, content: 'hi' })),
        { role: 'user', content: content as unknown as MessageCreateParamsNonStreaming['messages'][number]['content'] },
      ],
    });
    const fresh = (leading: number) => validateAnthropicBreakpoints(JSON.parse(JSON.stringify(body(leading))));
    expect(validateAnthropicBreakpoints(body(0))).toEqual(fresh(0));
    expect(validateAnthropicBreakpoints(body(0))).toEqual(fresh(0));
    expect(validateAnthropicBreakpoints(body(2))).toEqual(fresh(2));
    expect(fresh(2).map((warning) => warning.path)).toEqual(['messages[2].content[0]', 'messages[2].content[1]']);
  });

  it('visiting only the marked and unshared messages of a converted body finds what a full visit finds', () => {
    const clean = (text: string) => Object.freeze([Object.freeze({ type: 'text' as const, text })]);
    type Content = MessageCreateParamsNonStreaming['messages'][number]['content'];
    const messages: MessageCreateParamsNonStreaming['messages'] = Array.from({ length: 40 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: clean(`message ${index}`) as unknown as Content,
    }));
    // As the converter marks: a copy of the content with the marker on a copy of the block.
    messages[7] = { role: 'assistant', content: [{ type: 'text', text: 'message 7', cache_control: mark }] };
    messages[12] = { role: 'user', content: [{ type: 'text', text: '', cache_control: { type: 'ephemeral', ttl: '1h' } }] };
    messages[39] = { role: 'assistant', content: [{ type: 'text', text: 'last', cache_control: mark }] };
    const body: MessageCreateParamsNonStreaming = { model: 'claude-sonnet-4-5', max_tokens: 10, messages, cache_control: mark };
    const full = validateAnthropicBreakpoints(body);
    expect(full.map((warning) => warning.code)).toEqual(['not-cacheable', 'ttl-order']);
    expect(validateConvertedBreakpoints(body, [7, 12, 39])).toEqual(full);
    // The skipped messages are the caller's promise: a marker there is not seen.
    expect(validateConvertedBreakpoints(body, [7, 39])).toEqual([]);
    expect(hasMarkerFindings(clean('x'))).toBe(false);
    expect(hasMarkerFindings(messages[7]?.content as unknown[])).toBe(true);
  });
});
