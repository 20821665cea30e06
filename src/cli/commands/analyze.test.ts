import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicTurn } from '../../gateway/test-support/sessions.js';
import { runAnalyze } from './analyze.js';

describe('cachet analyze', () => {
  it("prints how often Cachet's causes agree with the provider's diagnostics, and the pairs that do not", async () => {
    const withTime = (turn: number, time: string) => {
      const body = anthropicTurn(turn);
      (body.system as Array<{ text: string }>)[0]!.text = `Now: ${time}. ${(body.system as Array<{ text: string }>)[0]!.text}`;
      return body;
    };
    const usage = { input_tokens: 30, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 2900 };
    const reason = (type: string) => ({ cache_miss_reason: { type, cache_missed_input_tokens: 2800 } });
    const file = join(mkdtempSync(join(tmpdir(), 'cachet-analyze-')), 'capture.jsonl');
    writeFileSync(
      file,
      [
        { at: '2026-11-23T10:00:00Z', body: withTime(1, '2026-11-23 10:00'), usage },
        { at: '2026-11-23T10:01:00Z', body: withTime(2, '2026-11-23 10:01'), usage, diagnostics: reason('system_changed') },
        { at: '2026-11-23T10:02:00Z', body: withTime(3, '2026-11-23 10:02'), usage, diagnostics: reason('messages_changed') },
        { at: '2026-11-23T10:03:00Z', body: withTime(4, '2026-11-23 10:03'), usage, diagnostics: reason('tools_changed') },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const out: string[] = [];
    expect(await runAnalyze(file, {}, { out: (line) => out.push(line), err: (line) => out.push(line) })).toBe(0);
    expect(out).toContain('  provider diagnostics: 2 of 3 misses agree (66.7%); Cachet clock / provider tools_changed ×1');
  });
});
