import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { anthropicTurn } from '../../gateway/test-support/sessions.js';
import type { StoreContent } from '../../trace/store-content.js';
import { captureOutput, temporaryFiles } from '../test-support/cli-test-io.js';
import { runEmulate } from './emulate.js';
import { runProxy } from './proxy.js';

const API_KEY = 'sk-ant-PLANTED-apikey-7f3e91';
const AUTH_TOKEN = 'PLANTED-bearer-token-c0ffee';
const PROMPT_SECRET = 'PLANTED-prompt-secret-d4e5';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Everything printed on any channel while the proxy runs. */
function spyOnEveryChannel(): string[] {
  const printed: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...parts: unknown[]) => void printed.push(parts.map(String).join(' ')));
  }
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
  }
  return printed;
}

/**
 * Three requests through `cachet proxy` to the emulator, with an API key, an auth header and a
 * secret in the system prompt right beside a clock that changes every request (so every break's
 * before/after excerpt would hold it). Returns every byte the run left: store files (SQLite
 * database, WAL, shared memory), the capture, and everything printed.
 */
async function proxiedRun(storeContent: StoreContent, capture: boolean): Promise<{ stored: string; printed: string }> {
  const { directory } = temporaryFiles(`cachet-secrets-${storeContent}-`);
  const emulatorLines: string[] = [];
  const stopEmulator = await runEmulate({ provider: 'anthropic', port: 0, host: '127.0.0.1' }, (line) =>
    emulatorLines.push(line),
  );
  const io = captureOutput();
  const printed = spyOnEveryChannel();
  const stopProxy = await runProxy(
    {
      upstream: /http:\/\/127\.0\.0\.1:\d+/.exec(emulatorLines[0]!)![0],
      port: 0,
      host: '127.0.0.1',
      db: join(directory, 'traces.db'),
      ...(capture ? { capture: join(directory, 'capture.jsonl') } : {}),
      storeContent,
      timeout: 10_000,
      maxBody: 4_000_000,
    },
    io.output,
  );
  try {
    const baseURL = /http:\/\/127\.0\.0\.1:\d+/.exec(io.out[0]!)![0];
    const client = new Anthropic({
      apiKey: API_KEY,
      baseURL,
      maxRetries: 0,
      defaultHeaders: { authorization: `Bearer ${AUTH_TOKEN}` },
    });
    for (let turn = 1; turn <= 3; turn++) {
      const body = anthropicTurn(turn);
      const system = body.system as Array<{ type: 'text'; text: string }>;
      system[0] = { ...system[0]!, text: `Deploy key ${PROMPT_SECRET} at 2026-11-27T10:0${turn}:00Z.\n${system[0]!.text}` };
      await client.messages.create(body);
    }
  } finally {
    await stopProxy();
    await stopEmulator();
    vi.restoreAllMocks();
  }
  const stored = readdirSync(directory)
    .map((file) => readFileSync(join(directory, file), 'latin1'))
    .join('\n');
  return { stored, printed: [...printed, ...io.out, ...io.err].join('\n') };
}

describe('--store-content: what a proxied run leaves behind', () => {
  it('full: prompt text is kept (the planted secret is found, so this search can fail), API keys and auth headers never', async () => {
    const { stored, printed } = await proxiedRun('full', true);
    expect(stored).toContain(PROMPT_SECRET);
    for (const secret of [API_KEY, AUTH_TOKEN]) {
      expect(stored).not.toContain(secret);
      expect(printed).not.toContain(secret);
    }
  });

  it.each([
    ['hashes', true],
    ['none', false],
  ] as const)(
    '%s: neither prompt text nor keys reach the store, the capture or any output; causes and tokens stay',
    async (mode, capture) => {
      const { stored, printed } = await proxiedRun(mode, capture);
      for (const secret of [API_KEY, AUTH_TOKEN, PROMPT_SECRET, 'careful coding agent']) {
        expect(stored, secret).not.toContain(secret);
        expect(printed, secret).not.toContain(secret);
      }
      // Causes and token counts are still stored.
      expect(stored).toContain('cache.break');
      expect(stored).toContain('usage.recorded');
      if (mode === 'hashes') expect(stored).toMatch(/sha256:[0-9a-f]{16}/);
      else expect(stored).not.toMatch(/sha256:[0-9a-f]{16}/);
    },
  );

  it('none refuses --capture (a capture is bodies) before opening the store', async () => {
    const { directory } = temporaryFiles('cachet-secrets-refuse-');
    await expect(
      runProxy({
        upstream: 'anthropic',
        port: 0,
        host: '127.0.0.1',
        db: join(directory, 'traces.db'),
        capture: join(directory, 'capture.jsonl'),
        storeContent: 'none',
        timeout: 1000,
        maxBody: 1000,
      }),
    ).rejects.toThrow('--capture writes request bodies');
    expect(readdirSync(directory)).toEqual([]);
  });
});
