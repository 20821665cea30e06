import { describe, expect, it } from 'vitest';
import { matchModelRow, modelIdMatches, releaseStem } from './match-model.js';

describe('modelIdMatches', () => {
  it.each([
    ['claude-haiku-4-5', 'claude-haiku-4-5-20251001', true],
    ['claude-haiku-4-5', 'anthropic.claude-haiku-4-5-20251001-v1:0', true],
    ['claude-haiku-4-5', 'claude-haiku-4-5@20251001', true],
    // One or two digits after the id are another version, a date is a release of the same one.
    ['claude-opus-4', 'claude-opus-4-5', false],
    ['claude-opus-4', 'claude-opus-4-9', false],
    ['claude-sonnet-5', 'claude-sonnet-5-5-20261101', false],
    ['claude-opus-4', 'claude-opus-4-20250514', true],
    ['gpt-3.5-turbo', 'gpt-3.5-turbo-0613', true],
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

describe('modelIdMatches at release strength (price rows)', () => {
  it.each([
    // Releases of the same model: dates, snapshots, tags.
    ['claude-sonnet-5-5', 'claude-sonnet-5-5-20261101', true],
    ['claude-sonnet-5-5', 'claude-sonnet-5-5@20261101', true],
    ['claude-haiku-4-5', 'us.anthropic.claude-haiku-4-5-20251001-v1:0', true],
    ['claude-haiku-4-5', 'claude-haiku-4-5-thinking', true],
    ['gpt-5.4', 'gpt-5.4-2026-03-05', true],
    ['gpt-4o-mini', 'gpt-4o-mini-2024-07-18', true],
    ['gemini-2.5-flash', 'gemini-2.5-flash-preview-09-2025', true],
    ['gemini-2.5-flash', 'gemini-2.5-flash-preview-05-20', true],
    ['gemini-3-pro', 'gemini-3-pro-preview', true],
    ['nova-pro', 'amazon.nova-pro-v1:0', true],
    ['deepseek-chat', 'deepseek-chat', true],
    // Variants: another product at another price.
    ['gpt-5.5', 'gpt-5.5-pro', false],
    ['gpt-5.2', 'gpt-5.2-mini-2026-01-15', false],
    ['gpt-5', 'gpt-5-image', false],
    ['gemini-3-pro', 'gemini-3-pro-image-preview', false],
    ['gemini-2.5-flash', 'gemini-2.5-flash-lite', false],
    ['claude-opus-4', 'claude-opus-4-9', false],
  ])('%s prices %s → %s', (id, model, expected) => {
    expect(modelIdMatches(id, model, 'release')).toBe(expected);
  });

  it('the family strength still covers variants (they share the cache mechanics)', () => {
    expect(modelIdMatches('gpt-5.5', 'gpt-5.5-pro')).toBe(true);
    expect(modelIdMatches('gemini-3-pro', 'gemini-3-pro-image-preview')).toBe(true);
  });
});

describe('releaseStem', () => {
  it.each([
    ['claude-sonnet-5-5-20261101', 'claude-sonnet-5-5'],
    ['gpt-5.2-2026-01-15', 'gpt-5.2'],
    ['gpt-5.2-mini-2026-01-15', 'gpt-5.2-mini'],
    ['gemini-2.5-flash-preview-09-2025', 'gemini-2.5-flash'],
    ['claude-haiku-4-5@20251001', 'claude-haiku-4-5'],
    ['claude-opus-4-5', 'claude-opus-4-5'],
    ['gpt-5.5-pro', 'gpt-5.5-pro'],
  ])('%s → %s', (model, stem) => {
    expect(releaseStem(model)).toBe(stem);
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
