import { describe, expect, it } from 'vitest';
import { CACHE_LIFETIMES_MS } from '../cache/wire/cache-rules.js';
import { resolveBedrockModel } from '../providers/bedrock/models.js';
import { resolveGeminiModel } from '../providers/gemini/models.js';
import { MODEL_FAMILY_ROWS, type ModelFamilyRow } from '../providers/openai-compatible/models.js';
import { oracleRulesFor, promptContentFor } from './oracle-rules.js';

describe('promptContentFor', () => {
  it('counts what the engine renders: DeepSeek-V3 through llama.cpp shows neither tool definitions nor tool calls', () => {
    expect(promptContentFor('openai-compatible', 'deepseek-v3')).toEqual({ toolDefinitions: false, toolCalls: false });
    expect(promptContentFor('openai-compatible', 'qwen3-8b')).toEqual({ toolDefinitions: true, toolCalls: true });
    expect(promptContentFor('openai-compatible', 'gemma-3-4b-it')).toEqual({ toolDefinitions: false, toolCalls: true });
    // Hosted APIs render everything they are sent.
    expect(promptContentFor('deepseek', 'deepseek-chat')).toEqual({ toolDefinitions: true, toolCalls: true });
  });
});

describe('oracleRulesFor', () => {
  it("honours a caller's family rows the way the local cache model does", () => {
    const qwen3 = MODEL_FAMILY_ROWS.find((row) => row.family === 'qwen3') as ModelFamilyRow;
    const callerRow: ModelFamilyRow = { ...qwen3, models: ['house-model'], family: 'house' };
    const unknown = oracleRulesFor('openai-compatible', 'house-model-7b');
    const known = oracleRulesFor('openai-compatible', 'house-model-7b', { families: [callerRow] });
    // Without the row the family is unknown: the looser bound lets the reply be read back.
    expect(unknown.reusesReply).toBe(true);
    expect(unknown.fixedFraming).toBe(false);
    // With it, Qwen3's template facts apply: the reply is re-rendered and framing is fixed.
    expect(known.reusesReply).toBe(false);
    expect(known.fixedFraming).toBe(true);
  });

  it('gives Gemini its implicit lifetime, its own minimum and explicit caches with storage', () => {
    const rules = oracleRulesFor('gemini', 'gemini-2.5-flash');
    const row = resolveGeminiModel('gemini-2.5-flash');
    expect(rules.kind).toBe('automatic');
    expect(rules.shortTtlMs).toBe(CACHE_LIFETIMES_MS.geminiImplicitIdle);
    expect(rules.longTtlMs).toBe(CACHE_LIFETIMES_MS.geminiImplicitIdle);
    expect(rules.minimumTokens).toBe(row.implicitMinimumTokens);
    expect(rules.incrementTokens).toBe(1);
    expect(rules.write5mRate).toBe(rules.inputRate);
    expect(rules.readRate).toBeCloseTo(rules.inputRate * row.readMultiplier, 12);
    expect(rules.explicitCache).toEqual({
      minimumTokens: row.explicitMinimumTokens,
      createRate: rules.inputRate,
      readRate: rules.readRate,
      storageRatePerTokenHour: row.storagePerMTokHour / 1_000_000,
    });
  });

  it('keys the messages on images where the cache model does: Anthropic Messages and Bedrock bodies', () => {
    expect(oracleRulesFor('anthropic', 'claude-sonnet-4-5').imagesKeyMessages).toBe(true);
    expect(oracleRulesFor('bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0').imagesKeyMessages).toBe(true);
    // OpenRouter's Anthropic routes are judged as Chat Completions bodies, which carry no such key.
    expect(oracleRulesFor('openrouter', 'anthropic/claude-sonnet-4-5').imagesKeyMessages).toBe(false);
    expect(oracleRulesFor('openai-chat', 'gpt-5').imagesKeyMessages).toBe(false);
  });

  it('reuses nothing implicitly on a Gemini model without implicit caching', () => {
    expect(oracleRulesFor('gemini', 'gemini-2.0-flash').minimumTokens).toBe(Number.POSITIVE_INFINITY);
  });

  it('takes Bedrock minimums, TTLs and prefix caps from the Bedrock rows', () => {
    const sonnet = oracleRulesFor('bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(sonnet.kind).toBe('explicit');
    expect(sonnet.longTtlMs).toBe(CACHE_LIFETIMES_MS.anthropic1h);
    expect(sonnet.minimumTokens).toBe(
      resolveBedrockModel('us.anthropic.claude-sonnet-4-5-20250929-v1:0').minimumTokensPerCheckpoint,
    );
    // No 1-hour TTL for Claude 3.5 Haiku on Bedrock: the long TTL is the short one.
    const haiku = oracleRulesFor('bedrock', 'anthropic.claude-3-5-haiku-20241022-v1:0');
    expect(haiku.longTtlMs).toBe(CACHE_LIFETIMES_MS.anthropic5m);
    const nova = oracleRulesFor('bedrock', 'us.amazon.nova-pro-v1:0');
    expect(nova.maxCachedTokens).toBe(20_000);
    expect(nova.minimumTokens).toBe(1024);
    expect(nova.write5mRate).toBe(nova.inputRate);
    expect(nova.readRate).toBeCloseTo(nova.inputRate * 0.25, 12);
    expect(nova.deferredTools).toBe(false);
  });
});
