import { describe, expect, it } from 'vitest';
import { costOf } from '../cache/cost.js';
import { simulationJson } from '../cli/simulation-report.js';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { simulateWorkload } from './simulate-workload.js';
import { STRATEGY_NAMES } from './strategy.js';

const coding = await loadWorkload('coding-agent');
const skills = await loadWorkload('skill-varying-chat');

describe('simulateWorkload', () => {
  const results = Object.fromEntries(STRATEGY_NAMES.map((strategy) => [strategy, simulateWorkload(coding, { strategy })]));

  it('measures every strategy against the same ideal, which starts at 0', () => {
    const ideals = STRATEGY_NAMES.map((strategy) => results[strategy]!.requests.map((request) => request.idealCacheReadTokens));
    expect(ideals[1]).toEqual(ideals[0]);
    expect(ideals[2]).toEqual(ideals[0]);
    expect(ideals[0]![0]).toBe(0);
    expect(ideals[0]!.slice(1).every((tokens) => tokens > 0)).toBe(true);
  });

  it('keeps totals consistent with the requests and the cache model figures', () => {
    for (const strategy of STRATEGY_NAMES) {
      const result = results[strategy]!;
      const sum = (pick: (request: (typeof result.requests)[number]) => number) =>
        result.requests.reduce((total, request) => total + pick(request), 0);
      expect(result.totals.inputTokens).toBe(sum((request) => request.inputTokens));
      expect(result.totals.cacheReadTokens).toBe(sum((request) => request.cacheReadTokens));
      expect(result.totals.readShare).toBeCloseTo(result.totals.cacheReadTokens / result.totals.inputTokens, 12);
      expect(result.totals.efficiency).toBeCloseTo(result.totals.cacheReadTokens / result.totals.idealCacheReadTokens, 12);
      for (const request of result.requests) {
        expect(request.cacheReadTokens + request.cacheWriteTokens + request.uncachedTokens).toBe(request.inputTokens);
        const usage = {
          uncachedInputTokens: request.uncachedTokens,
          cacheReadTokens: request.cacheReadTokens,
          cacheWrite5mTokens: request.cacheWriteTokens - request.cacheWrite1hTokens,
          cacheWrite1hTokens: request.cacheWrite1hTokens,
          outputTokens: 0,
          reasoningTokens: 0,
          raw: null,
        };
        expect(request.costUsd).toBeCloseTo(costOf(usage, 'anthropic', coding.model).costUsd, 12);
        if (request.missCause !== null) expect(request.cacheReadTokens).toBeLessThan(request.idealCacheReadTokens);
      }
    }
  });

  it('ranks the designs as the seeds describe: cachet reaches the limit, naive never caches history', () => {
    expect(results.cachet!.totals.efficiency).toBeGreaterThanOrEqual(0.99);
    expect(results.naive!.totals.efficiency).toBeLessThan(0.5);
    expect(results.cachet!.totals.costUsd).toBeLessThan(results.markers!.totals.costUsd);
    expect(results.markers!.totals.costUsd).toBeLessThan(results.naive!.totals.costUsd);
    expect(results.markers!.requests.some((request) => request.missCause === 'lookback-exceeded')).toBe(true);
  });

  it('names the clock when the naive system prompt carries the time', () => {
    const naive = simulateWorkload(skills, { strategy: 'naive' });
    const causes = new Set(naive.requests.map((request) => request.missCause).filter(Boolean));
    expect(causes.has('clock')).toBe(true);
  });

  it('zeroes the ideal after a gap longer than the longest cache lifetime', async () => {
    const long = await loadWorkload('long-session-idle-gaps');
    const result = simulateWorkload({ ...long, turns: long.turns.slice(95, 110) }, { strategy: 'cachet' });
    const afterLunch = result.requests.findIndex(
      (request, index) => index > 0 && request.at - result.requests[index - 1]!.at > 3_600_000,
    );
    expect(afterLunch).toBeGreaterThan(0);
    expect(result.requests[afterLunch]!.idealCacheReadTokens).toBe(0);
    expect(result.requests[afterLunch + 1]!.idealCacheReadTokens).toBeGreaterThan(0);
  });

  it('is deterministic and publishes the request cycle on the bus', () => {
    const bus = new EventBus();
    const events: CachetEvent[] = [];
    bus.onAny((event) => events.push(event));
    const again = simulateWorkload(coding, { strategy: 'cachet', bus });
    expect(again.totals).toEqual(results.cachet!.totals);
    const assembled = events.filter((event) => event.type === 'request.assembled');
    const recorded = events.filter((event) => event.type === 'usage.recorded');
    expect(assembled).toHaveLength(again.requests.length);
    expect(recorded).toHaveLength(again.requests.length);
    expect(events[0]!.type).toBe('session.started');
    // Labels for the overview: where the session came from, its workload and the oracle's cost (regret).
    expect(events[0]!.payload).toMatchObject({
      source: 'simulation',
      workload: coding.name,
      strategy: 'cachet',
      oracleCostUsd: again.totals.oracleCostUsd,
    });
  });

  it('sizes zones with the same counting the cache model bills (tool results, tool inputs, schemas, images)', async () => {
    // Tool-heavy (coding-agent) and image-bearing (cms-agent) sessions: before both paths shared
    // one counting of a block, zone sizes ran 15% above the simulated input tokens.
    for (const workload of [coding, await loadWorkload('cms-agent')]) {
      const bus = new EventBus();
      const zoneTotals: number[] = [];
      bus.on('request.assembled', (event) => {
        const zones = event.payload.zoneTokens;
        zoneTotals.push(zones.global + zones.session + zones.history + zones.tail);
      });
      const result = simulateWorkload(workload, { strategy: 'cachet', provider: 'anthropic', bus });
      expect(result.requests.some((request) => request.paddingApplied)).toBe(false);
      expect(zoneTotals).toEqual(result.requests.map((request) => request.inputTokens));
    }
  });

  it('produces exactly the JSON shape of `cachet simulate --json`', () => {
    const json = simulationJson(results.cachet!);
    // Issue 4's keys, unchanged, then `priced` (issue 13), `priceSource` (issue 23) and issue 10's oracle summary and three totals.
    expect(Object.keys(json)).toEqual([
      'workload',
      'provider',
      'model',
      'strategy',
      'priced',
      'priceSource',
      'requests',
      'totals',
      'oracle',
    ]);
    expect(json.priceSource).toBe('cachet');
    expect(Object.keys(json.requests[0]!)).toEqual([
      'turn',
      'step',
      'inputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
      'uncachedTokens',
      'idealCacheReadTokens',
      'costUsd',
      'missCause',
    ]);
    expect(Object.keys(json.totals)).toEqual([
      'inputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
      'uncachedTokens',
      'idealCacheReadTokens',
      'costUsd',
      'uncachedCostUsd',
      'readShare',
      'efficiency',
      'oracleCostUsd',
      'oracleProcessedTokens',
      'regret',
    ]);
    expect(Object.keys(json.oracle)).toEqual(['toolDeclaration', 'paddingTokens', 'tailScopes', 'futureKnowledge']);
  });

  it('runs on every provider the CLI names, never reading past the ideal', () => {
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'openrouter'] as const) {
      const result = simulateWorkload(coding, { provider, strategy: 'cachet' });
      expect(result.provider).toBe(provider);
      expect(result.totals.cacheReadTokens).toBeGreaterThan(0);
      // The ideal is measured in the tokens the cache model bills (OpenAI's message framing
      // included), so no request reads more than its physical limit.
      for (const request of result.requests)
        expect(request.cacheReadTokens - request.paddingReadTokens).toBeLessThanOrEqual(request.idealCacheReadTokens);
    }
  });
});
