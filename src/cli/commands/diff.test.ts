import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { anthropicRequest } from '../../cache/test-support/break-fixtures.js';
import { captureOutput, temporaryFiles } from '../test-support/cli-test-io.js';
import { DIFF_BAD_INPUT_EXIT_CODE, registerDiffCommand, runDiff } from './diff.js';

const { directory, file } = temporaryFiles('cachet-diff-');

describe('cachet diff', () => {
  const a = file('a.json', anthropicRequest({ time: '2026-11-21T10:00:00Z' }));
  const b = file('b.json', anthropicRequest({ time: '2026-11-21T10:05:00Z' }));

  it('--json prints exactly {identical, firstDivergence, cause, cacheImpact}', async () => {
    const io = captureOutput();
    expect(await runDiff(a, b, { json: true }, io.output)).toBe(0);
    expect(io.out).toHaveLength(1);
    const parsed = JSON.parse(io.out[0]!);
    expect(Object.keys(parsed)).toEqual(['identical', 'firstDivergence', 'cause', 'cacheImpact']);
    expect(parsed).toMatchObject({ identical: false, cause: 'clock', firstDivergence: { zone: 'system', path: 'system[1]' } });
    // system[1] closes the first breakpoint: the whole system block and the marked message are lost.
    expect(parsed.cacheImpact).toBeGreaterThan(0);
    expect(Object.keys(parsed.firstDivergence)).toEqual(['zone', 'path', 'byteOffset', 'before', 'after']);
  });

  it('prints null divergence and cause for an appending successor', async () => {
    const grown = anthropicRequest({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Fix the failing test.' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Thanks.', cache_control: { type: 'ephemeral' } }] },
      ],
    });
    const io = captureOutput();
    await runDiff(a, file('grown.json', grown), { json: true }, io.output);
    expect(JSON.parse(io.out[0]!)).toEqual({ identical: false, firstDivergence: null, cause: null, cacheImpact: 0 });
  });

  describe('changes no breakpoint covers (system-only breakpoint)', () => {
    const systemOnly = (messages: unknown[], extra: Record<string, unknown> = {}) => anthropicRequest({ messages, extra });
    const history = [
      { role: 'user', content: [{ type: 'text', text: 'Fix the failing test.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Which one?' }] },
      { role: 'user', content: [{ type: 'text', text: 'The parser test.' }] },
    ];
    const before = file('system-only-a.json', systemOnly(history));

    it('reports a history edit behind the breakpoint with cacheImpact 0', async () => {
      const edited = structuredClone(history);
      (edited[1]!.content[0] as { text: string }).text = 'Which test, exactly?';
      const io = captureOutput();
      await runDiff(before, file('system-only-b.json', systemOnly(edited)), { json: true }, io.output);
      const parsed = JSON.parse(io.out[0]!);
      expect(parsed).toMatchObject({
        identical: false,
        cause: 'history-edited',
        cacheImpact: 0,
        firstDivergence: { zone: 'messages', path: 'messages[1].content[0]', byteOffset: 29 },
      });
    });

    it('reports a tool_choice change behind the breakpoint with cacheImpact 0', async () => {
      const io = captureOutput();
      const after = file('system-only-c.json', systemOnly(history, { tool_choice: { type: 'any' } }));
      await runDiff(before, after, { json: true }, io.output);
      const parsed = JSON.parse(io.out[0]!);
      expect(parsed).toMatchObject({ identical: false, cause: 'params-changed', cacheImpact: 0 });
      expect(parsed.firstDivergence.zone).toBe('params');
      const text = captureOutput();
      await runDiff(before, after, {}, text.output);
      expect(text.out.join('\n')).toContain('cache impact: none');
    });
  });

  it('prints a readable report without --json', async () => {
    const io = captureOutput();
    await runDiff(a, b, {}, io.output);
    const text = io.out.join('\n');
    expect(text).toContain('first divergence: system at system[1]');
    expect(text).toContain('cause: clock');
    expect(text).toContain('10:05:00Z');
  });

  it('exits 2 naming the file for missing, non-JSON and non-request files', async () => {
    for (const [path, problem] of [
      [join(directory, 'missing.json'), /missing\.json: no such file/],
      [file('broken.json', '{"model": '), /broken\.json: is not valid JSON/],
      [file('array.json', '[1,2]'), /array\.json: expected a JSON object/],
      [file('shape.json', { model: 'x' }), /shape\.json: body\.messages: expected an array/],
    ] as const) {
      const io = captureOutput();
      expect(await runDiff(a, path, {}, io.output)).toBe(DIFF_BAD_INPUT_EXIT_CODE);
      expect(io.err.join('\n')).toMatch(problem);
    }
  });

  it('registers on a commander program', async () => {
    // Commander's error text is captured (and checked) instead of landing on the test run's stderr.
    const errors: string[] = [];
    const program = new Command().exitOverride().configureOutput({ writeErr: (text) => errors.push(text) });
    registerDiffCommand(program);
    const command = program.commands.find((candidate) => candidate.name() === 'diff');
    expect(command?.options.map((option) => option.long)).toEqual(['--json', '--provider', '--sequence']);
    expect(() => program.parse(['node', 'cachet', 'diff', a, b, '--provider', 'nope'])).toThrow(/expected one of/);
    expect(errors.join('')).toMatch(/argument 'nope' is invalid/);
  });
});
