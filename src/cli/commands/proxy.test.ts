import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { proxyGcTuned } from '../../gateway/proxy/proxy-gc.js';
import { anthropicTurn } from '../../gateway/test-support/sessions.js';
import { openSqliteTraceStore } from '../../trace/sqlite-trace-store.js';
import { captureOutput } from '../test-support/cli-test-io.js';
import { ANALYZE_BAD_INPUT_EXIT_CODE, runAnalyze } from './analyze.js';
import { runDiffSequence } from './diff.js';
import { runEmulate } from './emulate.js';
import { runProxy } from './proxy.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-proxy-cli-'));
const urlIn = (lines: string[]) => /http:\/\/127\.0\.0\.1:\d+/.exec(lines[0]!)![0];

describe('cachet emulate → cachet proxy → cachet analyze / diff --sequence', () => {
  it('records a session through the proxy, then judges its capture offline', async () => {
    const emulateLines: string[] = [];
    const stopEmulator = await runEmulate({ provider: 'anthropic', port: 0, host: '127.0.0.1' }, (line) =>
      emulateLines.push(line),
    );
    const emulatorUrl = urlIn(emulateLines);
    const db = join(directory, 'traces.db');
    const captureFile = join(directory, 'capture.jsonl');
    const proxyIo = captureOutput();
    const stopProxy = await runProxy(
      {
        upstream: emulatorUrl,
        port: 0,
        host: '127.0.0.1',
        plan: true,
        db,
        capture: captureFile,
        // The capture is judged and diffed below: it keeps the bodies' text.
        storeContent: 'full',
        timeout: 10_000,
        maxBody: 1_000_000,
      },
      proxyIo.output,
    );
    try {
      expect(proxyIo.out[0]).toContain('(--plan)');
      // The CLI's process collects its young generation sooner (proxy-gc.ts; the bench measures that).
      expect(proxyGcTuned()).toBe(true);
      const client = new Anthropic({ apiKey: 'sk-any', baseURL: urlIn(proxyIo.out), maxRetries: 0 });
      for (let turn = 1; turn <= 3; turn++) await client.messages.create(anthropicTurn(turn, { marked: false }));
    } finally {
      await stopProxy();
      await stopEmulator();
    }
    expect(proxyIo.err).toEqual([]);
    const lines = readFileSync(captureFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    const store = openSqliteTraceStore(db);
    try {
      const [session] = await store.sessions();
      expect(session).toMatchObject({ requests: 3, strategy: 'proxy-plan' });
      expect(session!.hitRate).toBeGreaterThan(0.5);
    } finally {
      await store.close();
    }

    const analyzeIo = captureOutput();
    expect(await runAnalyze(captureFile, { json: true }, analyzeIo.output)).toBe(0);
    const analysis = JSON.parse(analyzeIo.out[0]!);
    expect(analysis.totals.requests).toBe(3);
    expect(analysis.conversations[0].plannedReadShare).toBeGreaterThan(0.5);
    const text = captureOutput();
    await runAnalyze(captureFile, {}, text.output);
    expect(text.out.join('\n')).toContain("Cachet's plan");

    const diffIo = captureOutput();
    expect(await runDiffSequence(captureFile, { json: true }, diffIo.output)).toBe(0);
    const { pairs } = JSON.parse(diffIo.out[0]!);
    expect(pairs).toHaveLength(2);
    expect(pairs[0]).toMatchObject({ from: 0, to: 1, firstDivergence: null, cause: null, cacheImpact: 0 });
  });

  it('exits 2 naming the line of a bad capture', async () => {
    const bad = join(directory, 'bad.jsonl');
    writeFileSync(bad, '{"at": 1, "body": {"model": "m", "messages": []}}\n{"body": {}}\n');
    const io = captureOutput();
    expect(await runAnalyze(bad, {}, io.output)).toBe(ANALYZE_BAD_INPUT_EXIT_CODE);
    expect(io.err[0]).toMatch(/bad\.jsonl:2: at:/);
  });
});

describe('cachet proxy --keep-warm', () => {
  it('takes a budget in USD ≥ 0 and refuses an upstream without pre-warming before anything starts', async () => {
    const { parseBudgetUsd } = await import('./parse-port.js');
    expect(parseBudgetUsd('0.5')).toBe(0.5);
    expect(() => parseBudgetUsd('-1')).toThrow(/budget in USD ≥ 0/);
    expect(() => parseBudgetUsd('lots')).toThrow(/budget in USD ≥ 0/);
    const db = join(directory, 'never-opened.db');
    await expect(
      runProxy({ upstream: 'openai', port: 0, host: '127.0.0.1', keepWarm: 0.5, db, timeout: 1_000, maxBody: 1_000 }),
    ).rejects.toThrow(/openai upstream has no pre-warming request/);
    expect(() => readFileSync(db)).toThrow();
  });
});
