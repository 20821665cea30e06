import { describe, expect, it } from 'vitest';
import { activeUserModelRows } from '../providers/shared/user-model-rows.js';
import type { CliOutput } from './cli-options.js';
import { main } from './main.js';
import { temporaryFiles } from './test-support/cli-test-io.js';

function captured(): CliOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text), errIsTty: false };
}

const files = temporaryFiles('cachet-models-file-');
const cheaperHaiku = files.file(
  'haiku.yaml',
  '- {provider: anthropic, model: claude-haiku-4-5, inputPerMTok: 0.5, outputPerMTok: 2.5, floorTokens: 256, source: test row}\n',
);

describe('--models-file', () => {
  it('cachet models lists the file’s rows as their source', async () => {
    const output = captured();
    expect(await main(['models', '--provider', 'anthropic', '--json', '--models-file', cheaperHaiku], output)).toBe(0);
    const rows = JSON.parse(output.stdout.join('')) as Array<{
      model: string;
      priceSource: string;
      source: string;
      floorTokens: number;
    }>;
    expect(rows.filter((row) => row.model === 'claude-haiku-4-5')).toEqual([
      expect.objectContaining({ priceSource: 'models-file', source: 'test row', floorTokens: 256 }),
    ]);
    // The rows are in force only while the command runs.
    expect(activeUserModelRows()).toEqual([]);
  });

  it('cachet simulate prices and plans with the override', async () => {
    const run = async (extra: string[]) => {
      const output = captured();
      expect(await main(['simulate', 'below-minimum', '--json', ...extra], output)).toBe(0);
      return JSON.parse(output.stdout.join('')) as { totals: { costUsd: number; cacheReadTokens: number } };
    };
    const plain = await run([]);
    const overridden = await run(['--models-file', cheaperHaiku]);
    expect(plain.totals.cacheReadTokens).toBe(0);
    expect(overridden.totals.cacheReadTokens).toBeGreaterThan(0);
    expect(overridden.totals.costUsd).toBeLessThan(plain.totals.costUsd);
  });

  it('a bad row exits 2 naming the file, the row and the field', async () => {
    const bad = files.file('bad.json', [{ provider: 'anthropic', model: 'claude-haiku-4-5', inputPerMTok: -2 }]);
    const output = captured();
    expect(await main(['simulate', 'below-minimum', '--models-file', bad], output)).toBe(2);
    expect(output.stderr.join('')).toContain('bad.json: row 0 (claude-haiku-4-5): inputPerMTok: must not be negative');
  });
});
