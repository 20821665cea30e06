import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { propertyRuns } from './property-runs.js';

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), '../..');

function typeScriptFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('propertyRuns', () => {
  const saved = process.env.CACHET_PROPERTY_RUNS;
  afterEach(() => {
    if (saved === undefined) delete process.env.CACHET_PROPERTY_RUNS;
    else process.env.CACHET_PROPERTY_RUNS = saved;
  });

  it("is the property's own count unless CACHET_PROPERTY_RUNS names another", () => {
    delete process.env.CACHET_PROPERTY_RUNS;
    expect(propertyRuns(12)).toBe(12);
    process.env.CACHET_PROPERTY_RUNS = '300';
    expect(propertyRuns(12)).toBe(300);
  });

  it('refuses a count that is not a positive integer, naming the variable', () => {
    for (const bad of ['0', '-3', '2.5', 'many']) {
      process.env.CACHET_PROPERTY_RUNS = bad;
      expect(() => propertyRuns(12)).toThrow(`CACHET_PROPERTY_RUNS must be a positive integer, got "${bad}"`);
    }
  });

  it('sets the run count of every property in src/ (so npm run test:deep raises them all)', () => {
    const offenders: string[] = [];
    for (const file of typeScriptFiles(SOURCE)) {
      const text = readFileSync(file, 'utf8');
      const asserts = text.match(/\bfc\.assert\(/g)?.length ?? 0;
      const counted = text.match(/numRuns: (propertyRuns\(\d+\)|TOOL_LOOP_PROPERTY_RUNS)/g)?.length ?? 0;
      const pinned = /\bseed: \d/.test(text) && asserts > 0;
      if (asserts !== counted || pinned) offenders.push(relative(SOURCE, file));
    }
    expect(offenders, 'fc.assert without numRuns: propertyRuns(n), or with a pinned seed').toEqual([]);
  });
});
