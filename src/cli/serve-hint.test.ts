import { describe, expect, it } from 'vitest';
import { runningFromSource, serveHint } from './serve-hint.js';

describe('serveHint', () => {
  it('uses the package script from a clone (sources) and npx from a built package', () => {
    expect(runningFromSource('file:///repo/src/cli/serve-hint.ts')).toBe(true);
    expect(serveHint(' --db x.db', 'file:///repo/src/cli/serve-hint.ts')).toBe('npm run cachet -- serve --db x.db');
    expect(runningFromSource('file:///app/node_modules/cachet/dist/cli/serve-hint.js')).toBe(false);
    expect(serveHint('', 'file:///app/node_modules/cachet/dist/cli/serve-hint.js')).toBe('npx cachet serve');
  });
});
