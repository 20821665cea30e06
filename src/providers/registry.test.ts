import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPrice } from '../cache/pricing.js';
import type { CacheRules } from './provider-entry.js';
import { PROVIDER_IDS, PROVIDERS, providerEntry } from './registry.js';

const SRC = join(import.meta.dirname, '..');

/** Every member of the `CacheRules` union: some are also provider ids (`anthropic`, `deepseek`). */
const RULE_NAMES: readonly CacheRules[] = ['anthropic', 'openai', 'deepseek', 'local'];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('provider registry', () => {
  it('has one entry per provider id, each with its own adapter', () => {
    for (const id of PROVIDER_IDS) {
      const entry = providerEntry(id);
      expect(entry.id).toBe(id);
      expect(entry.adapter.id).toBe(id);
      expect(RULE_NAMES).toContain(entry.route('any-model').rules);
    }
    expect(Object.keys(PROVIDERS)).toEqual(PROVIDER_IDS);
  });

  it('states the OpenRouter route rule in one place and every consumer follows it', () => {
    const openrouter = providerEntry('openrouter');
    expect(openrouter.route('anthropic/claude-sonnet-4.5')).toEqual({
      rules: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      priceVendor: 'anthropic',
    });
    expect(openrouter.route('openai/gpt-4.1')).toEqual({ rules: 'openai', upstreamModel: 'gpt-4.1', priceVendor: 'openai' });
    expect(openrouter.route('deepseek/deepseek-chat').priceVendor).toBeNull();
    expect(findPrice('openrouter', 'anthropic/claude-sonnet-4.5')).toBe(findPrice('anthropic', 'claude-sonnet-4-5'));
    expect(findPrice('openai-compatible', 'qwen3-8b')).toBeNull();
  });

  it('leaves no switch or comparison on provider ids outside src/providers', () => {
    const ids = PROVIDER_IDS.map((id) => id.replace(/[-/]/g, '\\$&')).join('|');
    // `anthropic` and `deepseek` are also names of rule sets, so a bare `case 'anthropic'` is only
    // flagged inside a switch on a provider or format; the other ids are flagged anywhere.
    const providerOnlyIds = PROVIDER_IDS.filter((id) => !(RULE_NAMES as readonly string[]).includes(id))
      .map((id) => id.replace(/[-/]/g, '\\$&'))
      .join('|');
    const patterns = [
      new RegExp(`\\b(provider|format|providerId)\\b\\s*[!=]==\\s*'(${ids})'`),
      new RegExp(`case '(${providerOnlyIds})'`),
      /switch \((\w+\.)*(provider|format)\)/,
    ];
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const path = relative(SRC, file);
      // Providers own their ids; integrations switch on their host library's provider names.
      if (path.startsWith('providers/') || path.startsWith('integrations/')) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (patterns.some((pattern) => pattern.test(line))) offenders.push(`${path}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('the scan would catch a switch on provider ids', () => {
    const pattern = /switch \((\w+\.)*(provider|format)\)/;
    expect(pattern.test('  switch (context.provider) {')).toBe(true);
  });
});
