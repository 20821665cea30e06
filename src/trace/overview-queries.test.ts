import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrice } from '../cache/pricing.js';
import type { CachetEvent } from '../events/catalog.js';
import type { ProviderId } from '../providers/provider-id.js';
import { openTraceStore } from './open-trace-store.js';
import type { OverviewQuery, SessionListQuery } from './overview.js';
import { FLEET_T0, fleetEvents } from './test-support/fleet-events.js';
import { findPostgresBinaries, startThrowawayPostgres, type ThrowawayPostgres } from './test-support/throwaway-postgres.js';
import type { TraceStore } from './trace-store.js';

const events = [...fleetEvents({ sessions: 36, requestsPerSession: 9 })];
type Usage = CachetEvent<'usage.recorded'>;
type Started = CachetEvent<'session.started'>;
const usages = events.filter((event): event is Usage => event.type === 'usage.recorded');
const breaks = events.filter((event): event is CachetEvent<'cache.break'> => event.type === 'cache.break');
const started = new Map(
  events.filter((event): event is Started => event.type === 'session.started').map((event) => [event.sessionId, event.payload]),
);

/** Independent expectation: a missed token loses the input rate minus the read rate of its request's model. */
function lossOf(event: CachetEvent<'cache.break'>): number {
  const model = started.get(event.sessionId)!.model;
  const row = findPrice(started.get(event.sessionId)!.provider as ProviderId, model)!;
  return (event.payload.missedTokens * (row.inputPerMTok - row.cacheReadPerMTok)) / 1_000_000;
}

/** Numbers rounded to 9 significant digits: the two databases may add floats in another order. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(9));
  if (Array.isArray(value)) return value.map(rounded);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rounded(inner)]));
  return value;
}

const QUERIES: OverviewQuery[] = [
  {},
  { source: 'simulation' },
  { model: 'gpt-5', bucket: 'day' },
  { run: 'run-1', strategy: 'naive', from: FLEET_T0 + 30 * 60_000, to: FLEET_T0 + 3 * 3_600_000 },
  { provider: 'anthropic', project: 'repo-1' },
];
const LISTS: SessionListQuery[] = [
  {},
  { groupBy: 'workload', sort: 'lost', limit: 7, offset: 3 },
  { groupBy: 'source', sort: 'regret', source: 'simulation' },
  { groupBy: 'model', sort: 'cost', model: 'claude-sonnet-4-5', from: FLEET_T0 + 3_600_000 },
];

describe('overview queries (SQLite)', () => {
  let store: TraceStore;
  beforeAll(async () => {
    store = await openTraceStore(':memory:');
    await store.appendBatch(events);
  });
  afterAll(() => store.close());

  it('sums spend, savings, hit rate and write share per hour bucket, as the requests add up', async () => {
    const report = await store.overview();
    expect(report.bucket).toBe('hour');
    const cost = usages.reduce((sum, event) => sum + event.payload.costUsd, 0);
    const uncached = usages.reduce((sum, event) => sum + event.payload.uncachedCostUsd, 0);
    expect(report.totals.requests).toBe(usages.length);
    expect(report.totals.costUsd).toBeCloseTo(cost, 9);
    expect(report.totals.savingsUsd).toBeCloseTo(uncached - cost, 9);
    const hours = new Set(usages.map((event) => Math.floor(event.at / 3_600_000) * 3_600_000));
    expect(report.series.map((point) => point.at)).toEqual([...hours].sort((left, right) => left - right));
    expect(report.series.reduce((sum, point) => sum + point.requests, 0)).toBe(usages.length);
    const first = report.series[0]!;
    const inFirst = usages.filter((event) => event.at < first.at + 3_600_000);
    const read = inFirst.reduce((sum, event) => sum + event.payload.usage.cacheReadTokens, 0);
    const input = inFirst.reduce((sum, event) => {
      const usage = event.payload.usage;
      return sum + usage.uncachedInputTokens + usage.cacheReadTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
    }, 0);
    expect(first.hitRate).toBeCloseTo(read / input, 12);
    expect((await store.overview({ bucket: 'day' })).series).toHaveLength(1);
  });

  it('ranks miss causes by money lost, with the costliest breaks as examples', async () => {
    const report = await store.overview();
    const expected = new Map<string, { breaks: number; lost: number }>();
    for (const event of breaks) {
      const entry = expected.get(event.payload.cause) ?? { breaks: 0, lost: 0 };
      expected.set(event.payload.cause, { breaks: entry.breaks + 1, lost: entry.lost + lossOf(event) });
    }
    expect(report.causes.map((cause) => cause.cause).sort()).toEqual([...expected.keys()].sort());
    for (const cause of report.causes) {
      expect(cause.breaks).toBe(expected.get(cause.cause)!.breaks);
      expect(cause.lostUsd).toBeCloseTo(expected.get(cause.cause)!.lost, 9);
      expect(cause.examples.length).toBeGreaterThan(0);
      expect(cause.examples[0]!.lostUsd).toBe(Math.max(...cause.examples.map((example) => example.lostUsd)));
    }
    const lost = report.causes.map((cause) => cause.lostUsd);
    expect(lost).toEqual([...lost].sort((left, right) => right - left));
    expect(report.unpricedModels).toEqual([]);
  });

  it('names the sessions that lost most, and regret where the oracle is known', async () => {
    const report = await store.overview();
    const bySession = new Map<string, number>();
    for (const event of breaks) bySession.set(event.sessionId, (bySession.get(event.sessionId) ?? 0) + lossOf(event));
    const worst = [...bySession].sort((left, right) => right[1] - left[1])[0]!;
    expect(report.worstSessions[0]).toMatchObject({ sessionId: worst[0], source: started.get(worst[0])!.source });
    expect(report.worstSessions[0]!.lostUsd).toBeCloseTo(worst[1], 9);
    expect(report.worstSessions).toHaveLength(10);
    const regrets = [...started]
      .filter(([, payload]) => payload.oracleCostUsd !== undefined)
      .map(([sessionId, payload]) => {
        const cost = usages
          .filter((event) => event.sessionId === sessionId)
          .reduce((sum, event) => sum + event.payload.costUsd, 0);
        return { sessionId, regret: cost / payload.oracleCostUsd! - 1 };
      })
      .sort((left, right) => left.regret - right.regret);
    expect(report.regret.best.map((entry) => entry.sessionId)).toEqual(regrets.slice(0, 5).map((entry) => entry.sessionId));
    expect(report.regret.worst[0]!.regret).toBeCloseTo(regrets.at(-1)!.regret, 9);
    expect(report.facets.source).toEqual(['claude-code', 'proxy', 'simulation']);
  });

  it('filters by label, model and time, and lists sessions grouped and paginated', async () => {
    const simulated = await store.overview({ source: 'simulation' });
    expect(simulated.totals.requests).toBe(
      usages.filter((event) => started.get(event.sessionId)!.source === 'simulation').length,
    );
    const gpt = await store.overview({ model: 'gpt-5' });
    expect(gpt.totals.requests).toBe(usages.filter((event) => event.payload.model === 'gpt-5').length);
    const page = await store.sessionList({ groupBy: 'source', limit: 5, offset: 5 });
    expect(page.total).toBe(36);
    expect(page.sessions).toHaveLength(5);
    expect(page.groups.map((group) => group.key).sort()).toEqual(['claude-code', 'proxy', 'simulation']);
    expect(page.groups.reduce((sum, group) => sum + group.sessions, 0)).toBe(36);
    const all = await store.sessionList({ limit: 500 });
    expect(all.sessions.slice(5, 10)).toEqual(page.sessions);
    const lastAts = all.sessions.map((session) => session.lastAt);
    expect(lastAts).toEqual([...lastAts].sort((left, right) => right - left));
    const byLoss = await store.sessionList({ sort: 'lost', limit: 1 });
    expect(byLoss.sessions[0]!.sessionId).toBe((await store.overview()).worstSessions[0]!.sessionId);
  });
});

const binaries = findPostgresBinaries();

describe.skipIf(!binaries.found)('overview queries: PostgreSQL answers what SQLite answers', () => {
  let server: ThrowawayPostgres | undefined;
  let sqlite: TraceStore;
  let postgres: TraceStore;
  beforeAll(async () => {
    if (!binaries.found) return;
    server = await startThrowawayPostgres(binaries.bindir);
    postgres = await openTraceStore(await server.createDatabase('overview'));
    sqlite = await openTraceStore(':memory:');
    await postgres.appendBatch(events);
    await sqlite.appendBatch(events);
  }, 120_000);
  afterAll(async () => {
    await postgres?.close();
    await sqlite?.close();
    server?.stop();
  });

  it.each(QUERIES.map((query) => [JSON.stringify(query), query] as const))('overview %s', async (_name, query) => {
    expect(rounded(await postgres.overview(query))).toEqual(rounded(await sqlite.overview(query)));
  });

  it.each(LISTS.map((query) => [JSON.stringify(query), query] as const))('session list %s', async (_name, query) => {
    const answer = await postgres.sessionList(query);
    expect(answer.sessions.length).toBeGreaterThan(0);
    expect(rounded(answer)).toEqual(rounded(await sqlite.sessionList(query)));
  });
});
