import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openTraceStore } from './open-trace-store.js';
import { sampleEvents } from './test-support/sample-events.js';
import { TraceStoreError } from './trace-store-error.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-sqlite-open-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function openFailure(path: string): Promise<TraceStoreError> {
  const error = await openTraceStore(path)
    .then(async (store) => {
      // Some damage shows only when pages are read.
      try {
        await store.events();
        await store.cacheEffectiveness();
      } finally {
        await store.close();
      }
      return null;
    })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(TraceStoreError);
  return error as TraceStoreError;
}

describe('opening a damaged or impossible SQLite location', () => {
  it('names the path of a file of random bytes', async () => {
    const path = join(directory, 'random.db');
    writeFileSync(path, Buffer.from(Array.from({ length: 8192 }, (_, index) => (index * 7919 + 13) % 256)));
    const error = await openFailure(path);
    expect(error.location).toBe(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/not a SQLite database|corrupt/);
  });

  it('names the path of a truncated database', async () => {
    const good = join(directory, 'good.db');
    const store = await openTraceStore(good);
    for (let copy = 0; copy < 40; copy += 1) {
      await store.appendBatch(sampleEvents().map((event) => ({ ...event, sessionId: `${event.sessionId}-${copy}` })));
    }
    await store.close();
    const size = readFileSync(good).length;
    const path = join(directory, 'truncated.db');
    copyFileSync(good, path);
    truncateSync(path, Math.floor(size / 3));
    const error = await openFailure(path);
    expect(error.message).toContain(path);
  });

  it('names the path when a parent directory is a regular file', async () => {
    const file = join(directory, 'plain-file');
    writeFileSync(file, 'not a directory');
    const path = join(file, 'nested', 'traces.db');
    const error = await openFailure(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/regular file, not a directory/);
  });
});

const openerScript = fileURLToPath(new URL('./test-support/concurrent-opener.ts', import.meta.url));

describe('many processes opening one fresh SQLite file at once', () => {
  it('all succeed: migration happens once, the others wait for it (8 processes × 12 fresh files)', async () => {
    const children: Array<{ child: ChildProcess; lines: Interface; answers: string[]; waiting: Array<() => void> }> = [];
    for (let index = 0; index < 8; index += 1) {
      const child = spawn(process.execPath, ['--import', 'tsx', openerScript], { stdio: ['pipe', 'pipe', 'inherit'] });
      const entry = {
        child,
        lines: createInterface({ input: child.stdout! }),
        answers: [] as string[],
        waiting: [] as Array<() => void>,
      };
      entry.lines.on('line', (line) => {
        entry.answers.push(line);
        entry.waiting.shift()?.();
      });
      children.push(entry);
    }
    const nextAnswer = (entry: (typeof children)[number]) =>
      new Promise<string>((resolve) => {
        const take = () => resolve(entry.answers.shift()!);
        if (entry.answers.length > 0) take();
        else entry.waiting.push(take);
      });
    try {
      expect(await Promise.all(children.map(nextAnswer))).toEqual(Array(8).fill('ready'));
      const failures: string[] = [];
      for (let round = 0; round < 12; round += 1) {
        const path = join(directory, `race-${round}`, 'traces.db');
        for (const { child } of children) child.stdin!.write(`${path}\n`);
        const answers = await Promise.all(children.map(nextAnswer));
        failures.push(...answers.filter((answer) => answer !== 'ok').map((answer) => `round ${round}: ${answer}`));
        const store = await openTraceStore(path);
        expect((await store.events()).length, path).toBe(8);
        await store.close();
      }
      expect(failures).toEqual([]);
    } finally {
      for (const { child } of children) child.kill();
    }
  }, 120_000);
});
