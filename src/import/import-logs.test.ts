import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { temporaryFiles } from '../cli/test-support/cli-test-io.js';
import type { CachetEvent } from '../events/catalog.js';
import { openSqliteTraceStore } from '../trace/sqlite-trace-store.js';
import { ImportInputError } from './find-log-files.js';
import { type ImportSink, importLogs, storeSink } from './run-import.js';

const FIXTURES = fileURLToPath(new URL('./__fixtures__/', import.meta.url));

function collectingSink(): ImportSink & { events: CachetEvent[] } {
  const events: CachetEvent[] = [];
  return { events, has: async () => false, write: async (batch) => void events.push(...batch) };
}

describe('importLogs: Claude Code', () => {
  it('counts a message written as several block lines once, keeps its final output count, and splits the sidechain off', async () => {
    const sink = collectingSink();
    const summary = await importLogs({ harness: 'claude-code', path: join(FIXTURES, 'claude-code'), sink });
    expect(summary).toMatchObject({
      files: 1,
      sessions: 2,
      requests: 6,
      uncachedInputTokens: 60,
      cacheReadTokens: 3500,
      cacheWriteTokens: 7100,
      cacheWrite1hTokens: 1500,
      inputTokens: 10660,
      outputTokens: 137,
      unpricedRequests: 0,
      // The truncated last line and a foreign line; the summary line and the <synthetic> message are not requests.
      skippedLines: 2,
      skipped: { invalidJson: 1, foreign: 1, tooLong: 0 },
    });
    // claude-sonnet-4-5: $3 uncached, $0.30 read, $3.75 5-minute write, $6 1-hour write, $15 output per million.
    expect(summary.costUsd).toBeCloseTo((60 * 3 + 3500 * 0.3 + 5600 * 3.75 + 1500 * 6 + 137 * 15) / 1e6, 9);
    const sessions = new Set(sink.events.map((event) => event.sessionId));
    expect([...sessions].sort()).toEqual([
      'claude-code:5f0e1c2a-0000-4000-8000-000000000001',
      'claude-code:5f0e1c2a-0000-4000-8000-000000000001:agent-a1',
    ]);
    const started = sink.events.find((event) => event.type === 'session.started' && event.sessionId.endsWith('agent-a1'));
    expect(started?.payload).toMatchObject({ strategy: 'claude-code', source: 'claude-code', parentSession: expect.any(String) });
  });

  it('names idle expiry and compaction as their own causes; the sidechain reading its own prefix is no miss', async () => {
    const sink = collectingSink();
    const summary = await importLogs({ harness: 'claude-code', path: join(FIXTURES, 'claude-code'), sink });
    const breaks = sink.events.filter((event) => event.type === 'cache.break').map((event) => event.payload);
    expect(breaks).toEqual([
      expect.objectContaining({ cause: 'ttl-expired', missedTokens: 2300, turn: 1, step: 0 }),
      expect.objectContaining({ cause: 'compaction', missedTokens: 2400, zone: 'messages', turn: 2 }),
    ]);
    expect(summary.causes.map((cause) => cause.cause)).toEqual(['compaction', 'ttl-expired']);
    // One prompt and its tool loop are one turn: the second request is step 1 of turn 0.
    const steps = sink.events
      .filter((event) => event.type === 'usage.recorded' && !event.sessionId.includes('agent'))
      .map((event) => (event.type === 'usage.recorded' ? [event.payload.turn, event.payload.step] : null));
    expect(steps).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [2, 0],
    ]);
  });

  it('a 1-hour write keeps the cache through a gap a 5-minute one would not survive: that miss stays unknown', async () => {
    const { directory } = temporaryFiles('cachet-import-ttl-');
    const line = (uuid: string, at: string, id: string, usage: object) =>
      `${JSON.stringify({ type: 'assistant', sessionId: 's', uuid, timestamp: at, requestId: id, message: { id, model: 'claude-sonnet-4-5', usage } })}\n`;
    const file = join(directory, 's.jsonl');
    writeFileSync(
      file,
      line('a', '2026-11-20T10:00:00Z', 'r1', {
        input_tokens: 1,
        cache_creation_input_tokens: 900,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 900 },
      }),
    );
    appendFileSync(
      file,
      line('b', '2026-11-20T10:20:00Z', 'r2', { input_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 900 }),
    );
    const sink = collectingSink();
    const summary = await importLogs({ harness: 'claude-code', path: directory, sink });
    expect(summary.causes).toEqual([{ cause: 'unknown', count: 1, missedTokens: 900 }]);
    // The second line's writes are not split by lifetime.
    expect(summary.writeTtlUnknownRequests).toBe(1);
  });
});

describe('importLogs: Codex, opencode, pi', () => {
  it('Codex: cached tokens inside input_tokens, a repeated token_count counted once, an idle gap named', async () => {
    const summary = await importLogs({ harness: 'codex', path: join(FIXTURES, 'codex') });
    expect(summary).toMatchObject({
      sessions: 1,
      requests: 3,
      inputTokens: 15600,
      cacheReadTokens: 4864,
      uncachedInputTokens: 10736,
      cacheWriteTokens: 0,
      outputTokens: 180,
      skippedLines: 1,
      causes: [{ cause: 'ttl-expired', count: 1, missedTokens: 5200 }],
    });
    // gpt-5-codex: $1.25 input, $0.125 cached, $10 output per million.
    expect(summary.costUsd).toBeCloseTo((10736 * 1.25 + 4864 * 0.125 + 180 * 10) / 1e6, 9);
  });

  it('opencode: one file per message in name order, a model switch named, a truncated file skipped', async () => {
    const summary = await importLogs({ harness: 'opencode', path: join(FIXTURES, 'opencode') });
    expect(summary).toMatchObject({
      files: 6,
      sessions: 1,
      requests: 3,
      uncachedInputTokens: 160,
      cacheReadTokens: 3000,
      cacheWriteTokens: 6500,
      outputTokens: 90,
      skipped: { invalidJson: 1, foreign: 0, tooLong: 0 },
      causes: [{ cause: 'model-changed', count: 1, missedTokens: 3200 }],
    });
  });

  it('opencode: a request lasts from time.created to time.completed; without completed its duration stays unknown', async () => {
    const sink = collectingSink();
    await importLogs({ harness: 'opencode', path: join(FIXTURES, 'opencode'), sink });
    const durations = sink.events
      .filter((event) => event.type === 'usage.recorded')
      .map((event) => (event.type === 'usage.recorded' ? (event.payload.durationMs ?? 'unknown') : null));
    expect(durations).toEqual([2250, 2500, 'unknown']);
  });

  it('Claude Code, Codex and pi logs do not time their requests: no duration is recorded', async () => {
    for (const harness of ['claude-code', 'codex', 'pi'] as const) {
      const sink = collectingSink();
      await importLogs({ harness, path: join(FIXTURES, harness), sink });
      const usages = sink.events.filter((event) => event.type === 'usage.recorded');
      expect(usages.length).toBeGreaterThan(0);
      expect(usages.every((event) => event.type === 'usage.recorded' && event.payload.durationMs === undefined)).toBe(true);
    }
  });

  it('pi: a branch back to an earlier entry is a history edit at the block after the branch point', async () => {
    const summary = await importLogs({ harness: 'pi', path: join(FIXTURES, 'pi') });
    expect(summary).toMatchObject({ sessions: 1, requests: 3, cacheReadTokens: 3200, cacheWriteTokens: 2600, skippedLines: 1 });
    expect(summary.firstBreak).toMatchObject({ cause: 'history-edited', path: 'messages[2]', missedTokens: 900 });
  });

  it('finds logs under the default location and refuses a missing path with a typed error', async () => {
    const { directory } = temporaryFiles('cachet-import-home-');
    const sessions = join(directory, '.codex', 'sessions', '2026', '11', '20');
    mkdirSync(sessions, { recursive: true });
    copyFileSync(
      join(FIXTURES, 'codex/2026/11/20/rollout-2026-11-20T11-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl'),
      join(sessions, 'rollout-x.jsonl'),
    );
    writeFileSync(join(sessions, 'notes.jsonl'), '{}\n');
    const summary = await importLogs({ harness: 'codex', home: directory, env: {} });
    expect(summary).toMatchObject({ files: 1, requests: 3 });
    await expect(importLogs({ harness: 'pi', path: join(directory, 'nowhere') })).rejects.toThrow(ImportInputError);
  });
});

describe('importLogs into a trace store', () => {
  it('stores sessions the store reads back, and a second import of the same logs adds nothing', async () => {
    const store = await openSqliteTraceStore(':memory:');
    const first = await importLogs({ harness: 'claude-code', path: join(FIXTURES, 'claude-code'), sink: storeSink(store) });
    const report = await store.cacheEffectiveness();
    expect(report.overall.requests).toBe(6);
    expect(report.overall.tokens.cacheRead).toBe(first.cacheReadTokens);
    expect(report.overall.costUsd).toBeCloseTo(first.costUsd, 9);
    expect(report.breaks.map((entry) => entry.cause).sort()).toEqual(['compaction', 'ttl-expired']);
    const again = await importLogs({ harness: 'claude-code', path: join(FIXTURES, 'claude-code'), sink: storeSink(store) });
    expect(again).toMatchObject({ alreadyImported: 2, sessions: 0, requests: 0 });
    expect((await store.cacheEffectiveness()).overall.requests).toBe(6);
    await store.close();
  });
});
