import { describe, expect, it } from 'vitest';
import { resolveAnthropicModel } from '../providers/anthropic/models.js';
import { anthropicCacheMultipliers } from '../providers/anthropic/prices.js';
import { resolveBedrockModel } from '../providers/bedrock/models.js';
import { resolveGeminiModel } from '../providers/gemini/models.js';
import { resolveOpenAIModel } from '../providers/openai-chat/models.js';
import { activeUserModelRows, withUserModelRows } from '../providers/shared/user-model-rows.js';
import { modelCatalog } from './model-catalog.js';
import { ModelsFileError, parseModelsFile } from './models-file.js';
import { findPrice } from './pricing.js';

const FILE = 'my-models.yaml';

function failure(text: string): ModelsFileError {
  try {
    parseModelsFile(text, FILE);
  } catch (error) {
    if (error instanceof ModelsFileError) return error;
    throw error;
  }
  throw new Error('expected a ModelsFileError');
}

describe('parseModelsFile', () => {
  it('reads YAML rows, filling cache prices from multipliers or the built-in row', () => {
    const { rows } = parseModelsFile(
      `
models:
  - provider: anthropic
    model: claude-sonnet-5-5
    inputPerMTok: 3
    floorTokens: 2048
    source: my probe
    checked: 2026-11-27
  - provider: anthropic
    model: claude-kestrel-1
    inputPerMTok: 4
    outputPerMTok: 20
    readMultiplier: 0.05
    ttlOptions: [5m]
`,
      FILE,
    );
    // Sonnet 5.5: output and the 0.05× read come from the built-in row, the input rate from the file.
    expect(rows[0]?.price).toMatchObject({
      inputPerMTok: 3,
      outputPerMTok: 10,
      cacheReadPerMTok: expect.closeTo(0.15, 9),
      priceSource: 'models-file',
    });
    expect(rows[0]).toMatchObject({ floorTokens: 2048, source: 'my probe', checked: '2026-11-27', origin: `${FILE}#0` });
    // A new Claude model: standard write multipliers, the stated read multiplier.
    expect(rows[1]?.price).toMatchObject({ cacheReadPerMTok: 0.2, cacheWrite5mPerMTok: 5, cacheWrite1hPerMTok: 8 });
  });

  it('reads JSON as a plain list, with a long-prompt band', () => {
    const { rows } = parseModelsFile(
      JSON.stringify([
        {
          provider: 'gemini',
          model: 'gemini-4-flash',
          inputPerMTok: 0.5,
          outputPerMTok: 3,
          cacheReadPerMTok: 0.05,
          floorTokens: 2048,
          longPrompt: { thresholdTokens: 200_000, inputPerMTok: 1, outputPerMTok: 6 },
        },
      ]),
      'models.json',
    );
    expect(rows[0]?.price?.longPrompt).toMatchObject({ thresholdTokens: 200_000, inputPerMTok: 1, cacheReadPerMTok: 0.1 });
    expect(rows[0]?.price?.cacheWrite5mPerMTok).toBe(0.5);
  });

  it.each([
    [
      'a negative price',
      '- {provider: anthropic, model: claude-x-1, inputPerMTok: -1, outputPerMTok: 5}',
      0,
      'claude-x-1',
      'inputPerMTok',
      /negative/,
    ],
    [
      'a floor of 0',
      '- {provider: anthropic, model: claude-sonnet-5-5, floorTokens: 0}',
      0,
      'claude-sonnet-5-5',
      'floorTokens',
      /at least 1/,
    ],
    [
      'an unknown provider',
      '- {provider: anthropics, model: claude-sonnet-5-5}',
      0,
      'claude-sonnet-5-5',
      'provider',
      /unknown provider "anthropics"/,
    ],
    [
      'an unknown field',
      '- {provider: anthropic, model: claude-sonnet-5-5, floor: 512}',
      0,
      'claude-sonnet-5-5',
      'floor',
      /unknown field/,
    ],
    [
      'a duplicate id',
      '- {provider: gemini, model: gemini-3.5-flash, floorTokens: 2048}\n- {provider: gemini, model: Gemini-3.5-Flash, floorTokens: 1024}',
      1,
      'Gemini-3.5-Flash',
      'model',
      /duplicate of row 0/,
    ],
    [
      'a missing read price for a new model',
      '- {provider: openai-chat, model: gpt-9, inputPerMTok: 1, outputPerMTok: 4}',
      0,
      'gpt-9',
      'cacheReadPerMTok',
      /required/,
    ],
    [
      'a floor where the provider has none',
      '- {provider: deepseek, model: deepseek-chat, floorTokens: 64}',
      0,
      'deepseek-chat',
      'floorTokens',
      /no floor/,
    ],
    [
      'a TTL where the provider has no choice',
      '- {provider: gemini, model: gemini-3.5-flash, ttlOptions: [1h]}',
      0,
      'gemini-3.5-flash',
      'ttlOptions',
      /no TTL choice/,
    ],
    [
      'a model nobody prices, without prices',
      '- {provider: anthropic, model: claude-kestrel-9, floorTokens: 512}',
      0,
      'claude-kestrel-9',
      'inputPerMTok',
      /no price/,
    ],
  ])('refuses %s with a typed error naming the file, the row and the field', (_case, text, row, model, field, problem) => {
    const error = failure(text);
    expect(error).toMatchObject({ code: 'invalid_models_file', file: FILE, row, model, field });
    expect(error.problem).toMatch(problem);
    expect(error.message).toContain(`${FILE}: row ${row} (${model}): ${field}:`);
  });

  it('refuses a file that is not a list of rows, and text that is not YAML', () => {
    expect(failure('provider: anthropic').message).toMatch(/expected a list of model rows/);
    expect(failure('- [unclosed').message).toMatch(/not valid YAML or JSON/);
    expect(failure('- 42')).toMatchObject({ row: 0, model: null });
  });
});

describe('models-file rows in force', () => {
  const { rows } = parseModelsFile(
    `
- {provider: anthropic, model: claude-sonnet-5-5, inputPerMTok: 2, readMultiplier: 0.025, floorTokens: 2048, ttlOptions: [5m]}
- {provider: bedrock, model: claude-opus-5-5, ttlOptions: [5m, 1h]}
- {provider: openai-chat, model: gpt-5.5, floorTokens: 2048}
- {provider: gemini, model: gemini-3.5-flash, floorTokens: 1024}
`,
    FILE,
  );

  it('take effect for a model id already resolved under other rows (the resolver remembers ids per set of rows)', () => {
    const id = 'claude-sonnet-5-5-20261102';
    const before = resolveAnthropicModel(id);
    expect(before.effectiveFloorTokens).not.toBe(2048);
    withUserModelRows(rows, () => expect(resolveAnthropicModel(id).effectiveFloorTokens).toBe(2048));
    expect(resolveAnthropicModel(id)).toBe(before);
  });

  it('win over the built-in rows in every table, for dated ids too, and only while in force', () => {
    withUserModelRows(rows, () => {
      expect(resolveAnthropicModel('claude-sonnet-5-5-20261101')).toMatchObject({
        effectiveFloorTokens: 2048,
        ttlOptions: ['5m'],
      });
      expect(anthropicCacheMultipliers('claude-sonnet-5-5').read).toBeCloseTo(0.025);
      expect(findPrice('anthropic', 'claude-sonnet-5-5')).toMatchObject({ cacheReadPerMTok: 0.05, priceSource: 'models-file' });
      expect(findPrice('openrouter', 'anthropic/claude-sonnet-5.5')?.priceSource).toBe('models-file');
      expect(resolveBedrockModel('us.anthropic.claude-opus-5-5-v1:0').ttlOptions).toEqual(['5m', '1h']);
      expect(resolveOpenAIModel('gpt-5.5-2026-04-23').minimumPrefixTokens).toBe(2048);
      expect(resolveGeminiModel('gemini-3.5-flash').implicitMinimumTokens).toBe(1024);
    });
    expect(activeUserModelRows()).toEqual([]);
    expect(resolveAnthropicModel('claude-sonnet-5-5').effectiveFloorTokens).toBe(1024);
    expect(findPrice('anthropic', 'claude-sonnet-5-5')?.priceSource).toBeUndefined();
  });

  it('show in the catalog as models-file rows, replacing the built-in row of the same id', () => {
    const catalog = modelCatalog({ provider: 'anthropic', models: rows });
    const sonnet = catalog.filter((row) => row.model === 'claude-sonnet-5-5');
    expect(sonnet).toHaveLength(1);
    expect(sonnet[0]).toMatchObject({ priceSource: 'models-file', origin: `${FILE}#0`, floorTokens: 2048 });
    expect(sonnet[0]?.multipliers.read).toBeCloseTo(0.025);
  });
});
