import type { Diagnostics, MessageDeltaUsage, Usage as WireUsage } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { totalInputTokens } from '../../model/usage.js';
import { parseAnthropicCacheMissReason, parseAnthropicUsage } from './parse-usage.js';

/** The usage object of a current Messages API response, typed with the SDK so its shape is real. */
const cachedRead: WireUsage = {
  input_tokens: 12,
  cache_creation_input_tokens: 310,
  cache_read_input_tokens: 4620,
  cache_creation: { ephemeral_5m_input_tokens: 310, ephemeral_1h_input_tokens: 0 },
  output_tokens: 85,
  output_tokens_details: { thinking_tokens: 40 },
  server_tool_use: null,
  service_tier: 'standard',
  inference_geo: 'us',
  speed: 'standard',
};

describe('parseAnthropicUsage', () => {
  it('maps a full response: input_tokens is only what came after the last breakpoint', () => {
    const usage = parseAnthropicUsage({ id: 'msg_01', type: 'message', role: 'assistant', content: [], usage: cachedRead });
    expect(usage).toEqual({
      uncachedInputTokens: 12,
      cacheReadTokens: 4620,
      cacheWrite5mTokens: 310,
      cacheWrite1hTokens: 0,
      outputTokens: 85,
      reasoningTokens: 40,
      raw: cachedRead,
    });
    expect(totalInputTokens(usage)).toBe(12 + 4620 + 310);
  });

  it('splits writes by TTL from cache_creation', () => {
    const usage = parseAnthropicUsage({
      usage: {
        ...cachedRead,
        cache_creation_input_tokens: 5000,
        cache_creation: { ephemeral_5m_input_tokens: 800, ephemeral_1h_input_tokens: 4200 },
      },
    });
    expect([usage.cacheWrite5mTokens, usage.cacheWrite1hTokens]).toEqual([800, 4200]);
  });

  it('reads the older shape without a TTL breakdown as 5-minute writes (docs example, 2024 shape)', () => {
    const usage = parseAnthropicUsage({
      usage: { input_tokens: 21, cache_creation_input_tokens: 188086, cache_read_input_tokens: 0, output_tokens: 393 },
    });
    expect(usage).toMatchObject({
      uncachedInputTokens: 21,
      cacheWrite5mTokens: 188086,
      cacheWrite1hTokens: 0,
      cacheReadTokens: 0,
      outputTokens: 393,
    });
  });

  it('refuses a TTL breakdown larger than its total (the docs mixed-TTL example contradicts itself)', () => {
    const contradictory = {
      usage: {
        input_tokens: 2048,
        cache_read_input_tokens: 1800,
        cache_creation_input_tokens: 248,
        output_tokens: 503,
        cache_creation: { ephemeral_5m_input_tokens: 456, ephemeral_1h_input_tokens: 100 },
      },
    };
    expect(() => parseAnthropicUsage(contradictory)).toThrow(ValidationError);
    expect(() => parseAnthropicUsage(contradictory)).toThrow(/usage\.cache_creation: .*\(248\).*456 \+ 100/);
  });

  it('reads message_start and message_delta stream events', () => {
    const start = parseAnthropicUsage({ type: 'message_start', message: { usage: { ...cachedRead, output_tokens: 1 } } });
    expect(start.cacheReadTokens).toBe(4620);
    const deltaUsage: MessageDeltaUsage = {
      input_tokens: 12,
      cache_creation_input_tokens: 310,
      cache_read_input_tokens: 4620,
      output_tokens: 85,
      output_tokens_details: null,
      server_tool_use: null,
    };
    const delta = parseAnthropicUsage({ type: 'message_delta', delta: {}, usage: deltaUsage });
    expect([delta.uncachedInputTokens, delta.cacheReadTokens, delta.cacheWrite5mTokens, delta.outputTokens]).toEqual([
      12, 4620, 310, 85,
    ]);
  });

  it('treats null counts as zero', () => {
    const usage = parseAnthropicUsage({
      usage: {
        input_tokens: null,
        output_tokens: 3,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
        cache_creation: null,
      },
    });
    expect(totalInputTokens(usage)).toBe(0);
  });

  it('refuses malformed usage with a ValidationError naming the field', () => {
    expect(() => parseAnthropicUsage({ usage: { input_tokens: -1, output_tokens: 0 } })).toThrowError(/usage\.input_tokens/);
    expect(() => parseAnthropicUsage('nope')).toThrowError(ValidationError);
    expect(() => parseAnthropicUsage({ id: 'msg' })).toThrowError(/response\.usage/);
  });
});

describe('cache diagnostics (diagnostics.cache_miss_reason)', () => {
  const systemChanged: Diagnostics = { cache_miss_reason: { type: 'system_changed', cache_missed_input_tokens: 4096 } };

  it('keeps the server reason beside the usage, from a response and from message_start', () => {
    const response = { id: 'msg_02', usage: cachedRead, diagnostics: systemChanged };
    expect(parseAnthropicUsage(response).cacheMissReason).toEqual({ type: 'system_changed', missedTokens: 4096 });
    const start = { type: 'message_start', message: { id: 'msg_02', usage: cachedRead, diagnostics: systemChanged } };
    expect(parseAnthropicUsage(start).cacheMissReason).toEqual({ type: 'system_changed', missedTokens: 4096 });
  });

  it('tells "not requested" (absent) from "no miss" (null) and reasons without a token count', () => {
    expect('cacheMissReason' in parseAnthropicUsage({ usage: cachedRead })).toBe(false);
    expect(parseAnthropicUsage({ usage: cachedRead, diagnostics: null }).cacheMissReason).toBeNull();
    expect(parseAnthropicUsage({ usage: cachedRead, diagnostics: { cache_miss_reason: null } }).cacheMissReason).toBeNull();
    const notFound: Diagnostics = { cache_miss_reason: { type: 'previous_message_not_found' } };
    expect(parseAnthropicCacheMissReason({ diagnostics: notFound })).toEqual({
      type: 'previous_message_not_found',
      missedTokens: null,
    });
  });

  it('refuses a malformed reason naming the field', () => {
    expect(() => parseAnthropicUsage({ usage: cachedRead, diagnostics: { cache_miss_reason: { type: 7 } } })).toThrowError(
      /diagnostics\.cache_miss_reason\.type/,
    );
  });
});
