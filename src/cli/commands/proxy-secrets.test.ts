import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProxyApp } from '../../gateway/proxy/create-proxy-app.js';
import { main } from '../main.js';

const SECRET = 'PLANTED-s3cret-9d8c';

/** Everything the process could print, from any channel. */
function spyOnEveryChannel(): string[] {
  const printed: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...parts: unknown[]) => printed.push(parts.map(String).join(' ')));
  }
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
  }
  return printed;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('cachet proxy --upstream with user:password@', () => {
  it.each([
    ['a URL with credentials', `http://operator:${SECRET}@127.0.0.1:9/v1`],
    ['a URL with credentials that does not parse', `http://operator:${SECRET}@bad host/`],
    ['a password alone', `https://:${SECRET}@api.example.com`],
  ])('refuses %s and prints the password nowhere', async (_case, upstream) => {
    const directory = mkdtempSync(join(tmpdir(), 'cachet-secret-'));
    const db = join(directory, 'traces.db');
    const printed = spyOnEveryChannel();
    const lines: string[] = [];
    const code = await main(['proxy', '--upstream', upstream, '--port', '0', '--db', db], {
      out: (text) => lines.push(text),
      err: (text) => lines.push(text),
      errIsTty: false,
    });
    vi.restoreAllMocks();
    expect(code).not.toBe(0);
    const everything = [...printed, ...lines].join('\n');
    expect(everything).toMatch(/upstream: expected/);
    expect(everything).not.toContain(SECRET);
    // Nothing was stored: the store is not even created, and no file in its directory holds the secret.
    expect(existsSync(db)).toBe(false);
    for (const file of readdirSync(directory)) expect(readFileSync(join(directory, file), 'latin1')).not.toContain(SECRET);
  });

  it('the library refuses too, naming the host but not the password', () => {
    let caught: unknown;
    try {
      createProxyApp({ upstream: `http://operator:${SECRET}@gateway.internal:8080` });
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).toContain('credentials for gateway.internal:8080');
    expect((caught as Error).message).not.toContain(SECRET);
    expect(JSON.stringify(caught)).not.toContain(SECRET);
  });
});

describe('cachet proxy --host', () => {
  it('refuses an interface other machines can reach without --allow-remote, in one line, before opening the store', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cachet-host-'));
    const db = join(directory, 'traces.db');
    const lines: string[] = [];
    const code = await main(['proxy', '--upstream', 'anthropic', '--host', '0.0.0.0', '--port', '0', '--db', db], {
      out: (text) => lines.push(text),
      err: (text) => lines.push(text),
      errIsTty: false,
    });
    expect(code).not.toBe(0);
    expect(lines.join('')).toMatch(/^error: cachet proxy: refusing to listen on 0\.0\.0\.0.*--allow-remote.*\n$/);
    expect(existsSync(db)).toBe(false);
  });
});

describe('cachet serve --db', () => {
  it('refuses a path where no trace store exists instead of creating an empty one', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cachet-serve-db-'));
    const typo = join(directory, 'tarces.db');
    const lines: string[] = [];
    const code = await main(['serve', '--db', typo, '--port', '0'], {
      out: (text) => lines.push(text),
      err: (text) => lines.push(text),
      errIsTty: false,
    });
    expect(code).not.toBe(0);
    expect(lines.join('')).toContain(`--db ${typo}: no trace store there`);
    expect(existsSync(typo)).toBe(false);
  });
});
