import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anthropicTurn } from '../../gateway/test-support/sessions.js';
import { captureOutput, temporaryFiles } from '../test-support/cli-test-io.js';
import { CHECK_BAD_INPUT_EXIT_CODE, CHECK_FAILED_EXIT_CODE, runCheck } from './check.js';
import { runImport } from './import.js';

const FIXTURES = fileURLToPath(new URL('../../import/__fixtures__/', import.meta.url));
const START = Date.parse('2026-11-27T10:00:00Z');

/** A captured run of five requests, ten seconds apart; `clock` puts the time at the top of the system prompt. */
function capturedRun(file: string, clock: boolean): string {
  const lines: string[] = [];
  for (let turn = 1; turn <= 5; turn++) {
    const at = START + turn * 10_000;
    const body = anthropicTurn(turn);
    if (clock) {
      const system = body.system as Array<{ type: 'text'; text: string }>;
      system[0] = { ...system[0]!, text: `Current time: ${new Date(at).toISOString()}\n${system[0]!.text}` };
    }
    lines.push(JSON.stringify({ at, conversation: 'run', body }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('cachet check on a capture', () => {
  it('catches a clock injected into the system prompt: exit 1, the cause and the first divergent block printed', async () => {
    const { directory } = temporaryFiles('cachet-check-clock-');
    const io = captureOutput();
    const code = await runCheck(capturedRun(join(directory, 'clock.jsonl'), true), {}, io.output);
    const text = io.out.join('\n');
    expect(code).toBe(CHECK_FAILED_EXIT_CODE);
    expect(text).toMatch(/^FAIL: 5 requests \(capture\)/);
    expect(text).toContain('stable prefix: 4 request(s) missed because of clock');
    expect(text).toMatch(/first break: clock in run, request 1 at system\[0\] byte \d+: date\/time-like text changed/);
    expect(text).toContain('10:00:10');
  });

  it('passes the same run without the clock, and --min-read-share still judges the share', async () => {
    const { directory } = temporaryFiles('cachet-check-stable-');
    const file = capturedRun(join(directory, 'stable.jsonl'), false);
    const io = captureOutput();
    expect(await runCheck(file, { minReadShare: 0.5 }, io.output)).toBe(0);
    expect(io.out[0]).toMatch(/^PASS: 5 requests/);
    const strict = captureOutput();
    expect(await runCheck(file, { minReadShare: 0.99 }, strict.output)).toBe(CHECK_FAILED_EXIT_CODE);
    expect(strict.out.join('\n')).toContain('is below --min-read-share 99.0%');
  });

  it('a baseline written from the stable run fails the clocked run as a regression', async () => {
    const { directory } = temporaryFiles('cachet-check-baseline-');
    const baseline = join(directory, 'baseline.json');
    expect(
      await runCheck(capturedRun(join(directory, 'a.jsonl'), false), { writeBaseline: baseline }, captureOutput().output),
    ).toBe(0);
    const io = captureOutput();
    const code = await runCheck(
      capturedRun(join(directory, 'b.jsonl'), true),
      { baseline, stablePrefix: false, json: true },
      io.output,
    );
    expect(code).toBe(CHECK_FAILED_EXIT_CODE);
    const verdict = JSON.parse(io.out[0]!);
    expect(verdict.failures).toEqual([
      expect.stringMatching(/^regressed: read share .*, baseline/),
      'regressed: clock misses (4) the baseline did not have',
    ]);
  });
});

describe('cachet check on a store and on harness logs', () => {
  it('judges an imported store and harness logs read directly alike', async () => {
    const { directory } = temporaryFiles('cachet-check-store-');
    const db = join(directory, 'traces.db');
    await runImport('pi', join(FIXTURES, 'pi'), { db, storeContent: 'hashes' }, captureOutput().output);
    const store = captureOutput();
    expect(await runCheck(undefined, { db }, store.output)).toBe(CHECK_FAILED_EXIT_CODE);
    expect(store.out.join('\n')).toContain('first break: history-edited in pi:7a1c-fixture, request 1.0 at messages[2]');
    const logs = captureOutput();
    expect(await runCheck(join(FIXTURES, 'pi'), { from: 'pi', allowCause: ['history-edited'] }, logs.output)).toBe(0);
  });

  it.each([
    ['no input', undefined, {}],
    ['two inputs', 'capture.jsonl', { db: 'x.db' }],
    ['a missing capture', '/nonexistent/capture.jsonl', {}],
    ['an unknown harness', '.', { from: 'cursor' }],
    ['a store that does not exist', undefined, { db: '/nonexistent/traces.db' }],
  ])('exits 2 on %s', async (_case, input, options) => {
    const io = captureOutput();
    expect(await runCheck(input, options, io.output)).toBe(CHECK_BAD_INPUT_EXIT_CODE);
    expect(io.err[0]).toMatch(/^cachet check: /);
  });

  it('exits 2 on a malformed baseline', async () => {
    const { file, directory } = temporaryFiles('cachet-check-bad-baseline-');
    const baseline = file('baseline.json', '{"readShare": "high"}');
    const io = captureOutput();
    expect(await runCheck(capturedRun(join(directory, 'a.jsonl'), false), { baseline }, io.output)).toBe(
      CHECK_BAD_INPUT_EXIT_CODE,
    );
    expect(io.err[0]).toContain('--baseline');
  });
});
