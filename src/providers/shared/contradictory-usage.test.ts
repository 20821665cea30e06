import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { totalInputTokens } from '../../model/usage.js';
import { parseAnthropicUsage } from '../anthropic/parse-usage.js';
import { parseOpenAIChatUsage } from '../openai-chat/parse-usage.js';
import { parseOpenAICompatibleUsage } from '../openai-compatible/parse-usage.js';
import { parseOpenAIResponsesUsage } from '../openai-responses/parse-usage.js';
import { parseOpenRouterUsage } from '../openrouter/parse-usage.js';

const count = fc.integer({ min: 0, max: 2_000_000 });

/** Every OpenAI-shaped parser, fed one `(input, read, write)` triple in its own field names. */
const openAIShaped = [
  {
    name: 'openai-chat',
    parse: (input: number, read: number, write: number) =>
      parseOpenAIChatUsage({
        usage: {
          prompt_tokens: input,
          completion_tokens: 1,
          prompt_tokens_details: { cached_tokens: read, cache_write_tokens: write },
        },
      }),
  },
  {
    name: 'openrouter',
    parse: (input: number, read: number, write: number) =>
      parseOpenRouterUsage({
        usage: {
          prompt_tokens: input,
          completion_tokens: 1,
          prompt_tokens_details: { cached_tokens: read, cache_write_tokens: write },
        },
      }),
  },
  {
    name: 'openai-responses',
    parse: (input: number, read: number, write: number) =>
      parseOpenAIResponsesUsage({
        usage: {
          input_tokens: input,
          output_tokens: 1,
          input_tokens_details: { cached_tokens: read, cache_write_tokens: write },
        },
      }),
  },
  {
    // Local engines bill no writes: only reads are compared with the total.
    name: 'openai-compatible',
    parse: (input: number, read: number, _write: number) =>
      parseOpenAICompatibleUsage({
        usage: { prompt_tokens: input, completion_tokens: 1, prompt_tokens_details: { cached_tokens: read } },
      }),
    ignoresWrites: true,
  },
] as const;

describe('usage payloads that contradict themselves', () => {
  it('refuses cached_tokens larger than prompt_tokens (the 50x inflation of the campaign)', () => {
    const payload = { usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 5000 } } };
    expect(() => parseOpenAIChatUsage(payload)).toThrow(ValidationError);
    expect(() => parseOpenAIChatUsage(payload)).toThrow(
      'usage.prompt_tokens_details.cached_tokens: expected at most usage.prompt_tokens (100)',
    );
    expect(() => parseOpenRouterUsage(payload)).toThrow(ValidationError);
    expect(() => parseOpenAICompatibleUsage(payload)).toThrow(ValidationError);
  });

  it('names the Responses API fields in its refusal', () => {
    const payload = {
      usage: { input_tokens: 10, output_tokens: 1, input_tokens_details: { cached_tokens: 9, cache_write_tokens: 2 } },
    };
    expect(() => parseOpenAIResponsesUsage(payload)).toThrow(
      /usage\.input_tokens_details\.cached_tokens \+ usage\.input_tokens_details\.cache_write_tokens: expected at most usage\.input_tokens \(10\)/,
    );
  });

  it('refuses an Anthropic TTL breakdown larger than cache_creation_input_tokens, accepts one that sums to it', () => {
    const usage = (fiveMinutes: number, oneHour: number) => ({
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 1_000,
        cache_read_input_tokens: 0,
        output_tokens: 1,
        cache_creation: { ephemeral_5m_input_tokens: fiveMinutes, ephemeral_1h_input_tokens: oneHour },
      },
    });
    expect(() => parseAnthropicUsage(usage(50_000, 0))).toThrow(ValidationError);
    expect(() => parseAnthropicUsage(usage(600, 401))).toThrow(ValidationError);
    const consistent = parseAnthropicUsage(usage(600, 400));
    expect([consistent.cacheWrite5mTokens, consistent.cacheWrite1hTokens]).toEqual([600, 400]);
  });

  for (const parser of openAIShaped) {
    it(`${parser.name}: refuses exactly the payloads whose parts exceed the total, and the parts of the rest add up`, () => {
      fc.assert(
        fc.property(count, count, count, (input, read, write) => {
          const parts = read + ('ignoresWrites' in parser ? 0 : write);
          if (parts > input) {
            expect(() => parser.parse(input, read, write)).toThrow(ValidationError);
            return;
          }
          const usage = parser.parse(input, read, write);
          expect(totalInputTokens(usage)).toBe(input);
          expect(usage.cacheReadTokens).toBe(read);
        }),
        { numRuns: propertyRuns(300) },
      );
    });
  }

  it('anthropic: any breakdown within the total is kept and the rest counts as 5-minute writes', () => {
    fc.assert(
      fc.property(count, count, count, (total, fiveMinutes, oneHour) => {
        const payload = {
          usage: {
            input_tokens: 1,
            output_tokens: 1,
            cache_creation_input_tokens: total,
            cache_creation: { ephemeral_5m_input_tokens: fiveMinutes, ephemeral_1h_input_tokens: oneHour },
          },
        };
        if (fiveMinutes + oneHour > total) {
          expect(() => parseAnthropicUsage(payload)).toThrow(ValidationError);
          return;
        }
        const usage = parseAnthropicUsage(payload);
        expect(usage.cacheWrite5mTokens + usage.cacheWrite1hTokens).toBe(total);
        expect(usage.cacheWrite1hTokens).toBe(oneHour);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
