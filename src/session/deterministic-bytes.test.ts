import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../model/canonical-json.js';
import type { JsonValue } from '../model/json.js';
import { assemble } from './assemble.js';
import { demoSession } from './test-support/demo-session.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./test-support/print-request.ts', import.meta.url));

/** Assemble the demo request in a fresh Node process and return its canonical bytes. */
async function bytesFromProcess(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

describe('deterministic bytes', () => {
  it('assembles byte-identical requests in separate processes, whatever key order, time zone or locale', async () => {
    const [first, second] = await Promise.all([
      bytesFromProcess([], { TZ: 'UTC', LANG: 'C.UTF-8' }),
      bytesFromProcess(['--reversed'], { TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' }),
    ]);
    expect(first.length).toBeGreaterThan(1_000);
    expect(second).toBe(first);
    // And the same bytes as this process produces.
    const session = demoSession({ recall: { text: 'recall: build fixed last week' } });
    session.appendUserText('Fix it, please.');
    expect(canonicalJson(assemble(session) as unknown as JsonValue)).toBe(first);
  });
});
