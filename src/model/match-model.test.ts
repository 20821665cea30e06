import { describe, expect, it } from 'vitest';
import { matchModelRow, modelIdMatches } from './match-model.js';

describe('modelIdMatches', () => {
  it.each([
    ['claude-haiku-4-5', 'claude-haiku-4-5-20251001', true],
    ['claude-haiku-4-5', 'anthropic.claude-haiku-4-5-20251001-v1:0', true],
    ['claude-haiku-4-5', 'claude-haiku-4-5@20251001', true],
    ['claude-opus-4', 'claude-opus-4-5', true],
    ['gpt-4', 'gpt-4o', false],
    ['gpt-4.1', 'gpt-4.1-mini', true],
    ['gpt-5.1', 'gpt-5.10', false],
    ['gpt-5', 'gpt-5.6', false],
    ['llama-3', 'meta-llama-3-8b-instruct', true],
    ['qwen3', 'Qwen3-8B-Q4_K_M.gguf', true],
    ['qwen3', 'qwen3:8b', true],
    ['qwen3', 'unsloth/Qwen3-8B-GGUF', true],
    ['llama', 'ollama-model', false],
    ['anthropic', 'anthropic/claude-sonnet-4.5', true],
    ['', 'anything', false],
  ])('%s in %s → %s', (id, model, expected) => {
    expect(modelIdMatches(id, model)).toBe(expected);
  });
});

describe('matchModelRow', () => {
  const rows = [
    { name: 'opus-4', models: ['claude-opus-4'] },
    { name: 'opus-4-5', models: ['claude-opus-4-5'] },
  ];
  const idsOf = (row: { models: readonly string[] }) => row.models;

  it('prefers the longest matching id within a table', () => {
    expect(matchModelRow('claude-opus-4-5-20251101', [rows], idsOf)?.name).toBe('opus-4-5');
    expect(matchModelRow('claude-opus-4-20250514', [rows], idsOf)?.name).toBe('opus-4');
  });

  it('lets the first table with a match decide (caller rows win even when shorter)', () => {
    const overrides = [{ name: 'mine', models: ['claude'] }];
    expect(matchModelRow('claude-opus-4-5', [overrides, rows], idsOf)?.name).toBe('mine');
    expect(matchModelRow('gpt-5', [overrides, rows], idsOf)).toBeUndefined();
  });
});
