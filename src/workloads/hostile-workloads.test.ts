import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { DEFAULT_MAX_EXPANSION_BYTES, estimateExpansion } from './estimate-expansion.js';
import { loadWorkload, parseWorkload } from './load-workload.js';
import { WorkloadError } from './workload-error.js';
import { workloadFileSchema } from './workload-schema.js';

const HEADER = `name: hostile
description: Hostile input.
provider: anthropic
model: claude-sonnet-4-5
start: 2026-05-14T09:00:00Z
global:
  persona: You help.
  tools:
    - name: lookup
      description: Look something up.
      inputSchema: { type: object }
`;

const repeatedTurns = (count: number, tokens: number) => `${HEADER}turns:
  - repeat:
      count: ${count}
      turns:
        - user: Question {n}
          steps:
            - toolCalls:
                - { name: lookup, input: { q: a }, result: { tokens: ${tokens} } }
                - { name: lookup, input: { q: b }, result: { tokens: ${tokens} } }
            - text: Answer {n}.
`;

function workloadError(action: () => unknown): WorkloadError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(WorkloadError);
    return error as WorkloadError;
  }
  throw new Error('expected a WorkloadError, nothing was thrown');
}

describe('hostile workload files', () => {
  it('refuses a workload whose expansion would exhaust memory, before expanding it', () => {
    // 10,000 turns x 2 results x 200,000 tokens: about 15 TiB if expanded.
    const error = workloadError(() => parseWorkload(repeatedTurns(10_000, 200_000), 'bomb.yaml'));
    expect(error.path).toBe('turns[0].repeat');
    expect(error.line).toBe(14);
    expect(error.problem).toMatch(/expanding this workload would create about \d+ MiB .* over the limit of 512 MiB/);
  });

  it('still expands the same shape at a sane size, and the limit can be raised or lowered', () => {
    expect(parseWorkload(repeatedTurns(20, 500), 'ok.yaml').turns).toHaveLength(20);
    expect(() => parseWorkload(repeatedTurns(20, 500), 'ok.yaml', { maxExpansionBytes: 10_000 })).toThrow(WorkloadError);
  });

  it('estimates at least what expansion creates (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 400 }), (count, tokens) => {
        const text = repeatedTurns(count, tokens);
        const estimate = estimateExpansion(workloadFileSchema.parse(parse(text)));
        const workload = parseWorkload(text, 'p.yaml');
        const created = workload.turns.reduce(
          (sum, turn) =>
            sum +
            turn.user.length +
            turn.steps.reduce(
              (stepSum, step) =>
                stepSum +
                step.toolResults.reduce(
                  (resultSum, result) =>
                    resultSum + result.content.reduce((a, part) => a + (part.type === 'text' ? part.text.length : 0), 0),
                  0,
                ),
              0,
            ),
          0,
        );
        expect(estimate.bytes).toBeGreaterThanOrEqual(created);
        expect(estimate.bytes).toBeLessThan(DEFAULT_MAX_EXPANSION_BYTES);
      }),
      { numRuns: propertyRuns(25) },
    );
  });

  it('turns a YAML alias bomb into a WorkloadError (not a raw ReferenceError)', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      lines.push(
        `${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(9).fill(`*${previous}`).join(', ')}]`,
      );
    }
    const error = workloadError(() => parseWorkload(`${lines.join('\n')}\n`, 'aliases.yaml'));
    expect(error.message).toMatch(/^aliases\.yaml: \(root\): refused: .*alias/i);
  });

  it('names a file nested too deeply to parse', () => {
    const error = workloadError(() => parseWorkload(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'deep.json'));
    expect(error.problem).toMatch(/nested too deeply to parse/);
  });

  it('refuses tool input nested 100,000 deep with a WorkloadError', () => {
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const text = `${HEADER}turns:\n  - user: hi\n    steps:\n      - toolCalls: [{ name: lookup, input: ${deep}, result: ok }]\n      - text: done\n`;
    expect(() => parseWorkload(text, 'deep-input.yaml')).toThrow(WorkloadError);
  });

  it('refuses a FIFO and an oversized file, naming the file, without hanging or reading it whole', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cachet-hostile-workloads-'));
    const fifo = join(directory, 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    await expect(loadWorkload(fifo)).rejects.toThrow(/pipe\.yaml: \(root\): not a regular file \(a FIFO\)/);
    const large = join(directory, 'large.yaml');
    writeFileSync(large, `# ${'x'.repeat(2_000_000)}\n`);
    await expect(loadWorkload(large, { maxFileBytes: 1_000_000 })).rejects.toThrow(
      /large\.yaml: \(root\): 1\.9 MiB is larger than the limit/,
    );
  });

  it('points a missing bundled workload at `cachet workloads`', async () => {
    await expect(loadWorkload('no-such-workload')).rejects.toThrow(
      /no bundled workload named "no-such-workload" \(run `cachet workloads`/,
    );
  });
});
