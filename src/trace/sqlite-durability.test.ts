import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openTraceStore } from './open-trace-store.js';
import { durabilityPayload } from './test-support/durability-payload.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-durability-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const writerScript = fileURLToPath(new URL('./test-support/durability-writer.ts', import.meta.url));

describe('SQLite trace store durability', () => {
  it('keeps every committed event after the writing process is killed with SIGKILL', async () => {
    const path = join(directory, 'traces.db');
    const child = spawn(process.execPath, ['--import', 'tsx', writerScript, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const committed: number[] = [];
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    const lines = createInterface({ input: child.stdout });
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => {
        const match = /^committed (\d+)$/.exec(line);
        if (!match) return;
        committed.push(Number(match[1]));
        // Kill while the child is busy writing: it never pauses between events.
        if (committed.length === 300) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`writer exited early: ${stderr}`)));
    });
    expect(await exited).toBe('SIGKILL');

    const database = new Database(path);
    expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
    database.close();

    const store = await openTraceStore(path);
    const stored = await store.events({ sessionId: 'durable' });
    await store.close();
    const storedSeqs = stored.map((event) => event.seq);
    expect(storedSeqs.length).toBeGreaterThanOrEqual(committed.length);
    // Every committed event is there, and nothing after a gap: the store holds a prefix 0..k.
    expect(storedSeqs).toEqual(storedSeqs.map((_, index) => index));
    for (const seq of committed) {
      expect(stored[seq]!.payload).toEqual(durabilityPayload(seq));
    }
  });
});
