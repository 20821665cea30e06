import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { openTraceStore } from '../../trace/open-trace-store.js';
import { sampleEvents } from '../../trace/test-support/sample-events.js';
import { registerServeCommand, runServe, SERVED_PATHS } from './serve.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-serve-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('cachet serve', () => {
  it('serves an existing SQLite store and stops cleanly', async () => {
    const db = join(directory, 'traces.db');
    const writer = await openTraceStore(db);
    await writer.appendBatch(sampleEvents());
    await writer.close();
    const lines: string[] = [];
    const stop = await runServe({ db, port: 0, host: '127.0.0.1' }, (line) => lines.push(line));
    try {
      const url = /dashboard: (http:\/\/[^/]+)\//.exec(lines.join('\n'))?.[1];
      expect(url).toBeDefined();
      const body = await (await fetch(`${url}/sessions`)).json();
      expect(body.sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual(['s-beta', 's-alpha']);
      expect(lines[0]).toBe(`cachet serve: sqlite store ${db}`);
      // The API line lists what the server answers: each listed path (an id filled in) is served.
      const listed = lines.find((line) => line.startsWith('API: '));
      expect(listed).toBe(`API: ${url}${SERVED_PATHS.join(', ')} (docs/observability.md)`);
      for (const path of SERVED_PATHS) {
        const response = await fetch(`${url}${path.replace(':id', 's-alpha')}`);
        expect(response.status, path).toBe(200);
      }
    } finally {
      await stop();
    }
  });

  it('refuses a non-loopback host without a token', async () => {
    const previous = process.env.CACHET_SERVE_TOKEN;
    delete process.env.CACHET_SERVE_TOKEN;
    try {
      // The store must exist (serve refuses a missing path first); the host is what is refused here.
      const db = join(directory, 'refused.db');
      writeFileSync(db, '');
      await expect(runServe({ db, port: 0, host: '0.0.0.0' }, () => {})).rejects.toThrow(/without a bearer token/);
    } finally {
      if (previous !== undefined) process.env.CACHET_SERVE_TOKEN = previous;
    }
  });

  it('parses its options with commander and rejects a bad port', async () => {
    const program = new Command().exitOverride().configureOutput({ writeErr: () => {} });
    const serve = registerServeCommand(program);
    expect(serve.name()).toBe('serve');
    expect(serve.opts()).toMatchObject({ port: 4319, host: '127.0.0.1' });
    await expect(program.parseAsync(['serve', '--port', 'http'], { from: 'user' })).rejects.toThrow(/port number/);
  });
});
