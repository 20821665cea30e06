import { describe, expect, it } from 'vitest';
import { findPrice } from '../../cache/pricing.js';
import type { ProviderId } from '../../providers/adapter.js';
import { PriceMemo } from './price-memo.js';

describe('PriceMemo', () => {
  it('answers each look-up as findPrice does, the same model under another provider and back included', () => {
    const memo = new PriceMemo();
    const lookups: Array<[ProviderId, string]> = [
      ['anthropic', 'claude-sonnet-5'],
      ['anthropic', 'claude-sonnet-5'],
      // Priced under anthropic, not under openai-chat: the last look-up's row must not answer it.
      ['openai-chat', 'claude-sonnet-5'],
      ['openai-chat', 'gpt-5'],
      ['anthropic', 'gpt-5'],
      ['anthropic', 'claude-sonnet-5'],
      ['openai-chat', 'claude-sonnet-5'],
    ];
    for (const [provider, model] of lookups) expect(memo.of(provider, model)).toEqual(findPrice(provider, model));
    expect(memo.of('anthropic', 'claude-sonnet-5')).not.toBeNull();
    expect(memo.of('openai-chat', 'claude-sonnet-5')).toBeNull();
  });
});
