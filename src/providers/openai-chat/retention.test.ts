import { describe, expect, it } from 'vitest';
import type { AdapterWarning } from '../../model/adapter-warning.js';
import { chooseRetention } from './convert-request.js';
import { resolveOpenAIModel } from './models.js';

describe('prompt_cache_retention', () => {
  const choose = (model: string, options: Parameters<typeof chooseRetention>[0] = {}) => {
    const warnings: AdapterWarning[] = [];
    return { value: chooseRetention(options, resolveOpenAIModel(model), warnings), warnings };
  };
  it('sends 24h by default wherever the model accepts it', () => {
    expect(choose('gpt-5.2').value).toBe('24h');
    expect(choose('gpt-5.5').value).toBe('24h');
    expect(choose('gpt-4o')).toEqual({ value: null, warnings: [] });
  });
  it('forces in_memory under zero data retention, and says so when the model accepts only 24h', () => {
    expect(choose('gpt-4.1', { zeroDataRetention: true }).value).toBe('in_memory');
    const strict = choose('gpt-5.6', { zeroDataRetention: true, promptCacheRetention: '24h' });
    expect(strict.value).toBeNull();
    expect(strict.warnings.map((warning) => warning.message).join(' ')).toMatch(
      /not eligible for zero data retention.*|zero data retention needs in_memory/,
    );
  });
  it('omits an explicit value the model refuses, with the table source', () => {
    const refused = choose('gpt-4o', { promptCacheRetention: '24h' });
    expect(refused.value).toBeNull();
    expect(refused.warnings[0]).toMatchObject({
      code: 'retention-omitted',
      message: expect.stringMatching(/gpt-4o accepts in_memory/),
    });
  });
});
