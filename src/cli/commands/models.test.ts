import { describe, expect, it } from 'vitest';
import type { CliOutput } from '../cli-options.js';
import { runModels } from './models.js';

function captured(): CliOutput & { text: () => string } {
  const lines: string[] = [];
  return { out: (line) => lines.push(line), err: (line) => lines.push(line), errIsTty: false, text: () => lines.join('\n') };
}

describe('cachet models', () => {
  it('lists each row with its floor, read multiplier and cache-key parameters', () => {
    const output = captured();
    expect(runModels({ provider: 'anthropic' }, output, new Date('2026-11-25'))).toBe(0);
    const fable = output
      .text()
      .split('\n')
      .find((line) => line.startsWith('claude-fable-5-1 '));
    expect(fable).toMatch(/\b512\b.*0\.025×.*output_config\.format/);
    expect(output.text()).not.toContain('(stale)');
  });

  it('prints JSON rows with sources, and flags rows checked more than 180 days ago', () => {
    const output = captured();
    runModels({ provider: 'gemini', json: true }, output, new Date('2027-07-01'));
    const rows = JSON.parse(output.text()) as Array<{ model: string; stale: boolean; source: string; priceSource: string }>;
    const flash = rows.find((row) => row.model === 'gemini-3.5-flash');
    expect(flash).toMatchObject({ stale: true, priceSource: 'cachet' });
    expect(flash?.source).toMatch(/ai\.google\.dev/);
  });
});
