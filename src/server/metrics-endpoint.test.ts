import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { openTraceStore } from '../trace/open-trace-store.js';
import { fleetEvents } from '../trace/test-support/fleet-events.js';
import type { TraceStore } from '../trace/trace-store.js';
import { createApp } from './create-app.js';
import { prometheusText } from './prometheus-text.js';
import { startServer } from './start-server.js';

const events = [...fleetEvents({ sessions: 9, requestsPerSession: 6 })];
const usages = events.filter((event): event is CachetEvent<'usage.recorded'> => event.type === 'usage.recorded');
let store: TraceStore;
beforeAll(async () => {
  store = await openTraceStore(':memory:');
  await store.appendBatch(events);
});
afterAll(() => store.close());

/** `name{labels} value` lines of a Prometheus text answer, as [name, labels, value]. */
function parse(text: string): Array<[string, Record<string, string>, number]> {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1]!, pair[2]!]),
      );
      return [match[1]!, labels, Number(match[3])];
    });
}

describe('GET /metrics', () => {
  it('serves the Prometheus text format: requests, tokens by kind, cost, saved, hit rate, breaks by cause, per provider and model', async () => {
    const response = await createApp({ store }).request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    expect(text).toMatch(/^# HELP cachet_requests_total .+\n# TYPE cachet_requests_total counter\n/);
    const samples = parse(text);
    const sum = (name: string, keep: (labels: Record<string, string>) => boolean = () => true) =>
      samples.filter(([metric, labels]) => metric === name && keep(labels)).reduce((total, [, , value]) => total + value, 0);
    expect(sum('cachet_requests_total')).toBe(usages.length);
    const gpt = usages.filter((event) => event.payload.model === 'gpt-5');
    expect(sum('cachet_requests_total', (labels) => labels.model === 'gpt-5' && labels.provider === 'openai-responses')).toBe(
      gpt.length,
    );
    expect(sum('cachet_tokens_total', (labels) => labels.kind === 'cache_read')).toBe(
      usages.reduce((total, event) => total + event.payload.usage.cacheReadTokens, 0),
    );
    expect(sum('cachet_cost_usd_total')).toBeCloseTo(
      usages.reduce((total, event) => total + event.payload.costUsd, 0),
      9,
    );
    const breaks = events.filter((event) => event.type === 'cache.break');
    expect(sum('cachet_cache_breaks_total')).toBe(breaks.length);
    expect(sum('cachet_cache_breaks_total', (labels) => labels.cause === 'clock')).toBe(
      breaks.filter((event) => (event.payload as { cause: string }).cause === 'clock').length,
    );
    for (const [name, , value] of samples.filter(([metric]) => metric === 'cachet_cache_hit_ratio')) {
      expect(value, name).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
  });

  it('escapes label values and requires the bearer token when the server has one', async () => {
    expect(
      prometheusText([
        {
          metric: { prometheus: 'x_total', otel: 'x', kind: 'counter', unit: '1', help: 'h' },
          labels: { model: 'a"b\\c\nd' },
          value: 1,
        },
      ]),
    ).toBe('# HELP x_total h\n# TYPE x_total counter\nx_total{model="a\\"b\\\\c\\nd"} 1\n');
    const app = createApp({ store, token: 'metrics-token-0123456789abcdef' });
    expect((await app.request('/metrics')).status).toBe(401);
    const authorized = await app.request('/metrics', { headers: { authorization: 'Bearer metrics-token-0123456789abcdef' } });
    expect(authorized.status).toBe(200);
  });

  it('answers the same from the worker thread that serves a SQLite file', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cachet-metrics-'));
    const file = await openTraceStore(join(directory, 'traces.db'));
    await file.appendBatch(events);
    const server = await startServer({ store: file, port: 0 });
    try {
      const served = await (await fetch(`${server.url}/metrics`)).text();
      expect(served).toBe(prometheusText(await store.fleetMetrics()));
    } finally {
      await server.close();
      await file.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
