import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ORACLE = join(SOURCE, 'oracle');

/** Every module a file reaches through relative imports (type-only imports included). */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
    )) {
      const specifier = (match[1] ?? match[2]) as string;
      pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
  }
  return seen;
}

describe('strategies cannot see the future', () => {
  const strategies = [
    'simulate/cachet-strategy.ts',
    'simulate/harness-strategy.ts',
    'simulate/peer-strategy.ts',
    'runtime/prepare-request.ts',
  ];

  it.each(strategies)('%s reaches no module of src/oracle', (file) => {
    const modules = [...reachable(join(SOURCE, file))];
    const oracle = modules.filter((module) => module.startsWith(`${ORACLE}/`)).map((module) => relative(SOURCE, module));
    expect(modules.length).toBeGreaterThan(5);
    expect(oracle).toEqual([]);
  });

  it('the scan finds the oracle where it is imported (the simulator)', () => {
    const modules = [...reachable(join(SOURCE, 'simulate/simulate-workload.ts'))];
    expect(modules).toContain(join(ORACLE, 'hindsight-oracle.ts'));
  });
});
