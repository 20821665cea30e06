import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import type { AnthropicOptions } from '../providers/anthropic/options.js';
import { chooseSummaryRoute } from './summary-route.js';
import { buildLogParent, buildLogSpan, recordingSummarizer, summaryInput, summaryParent } from './test-support/summary-parent.js';

const MINUTE = 60_000;

/** A Sonnet 4.5 parent with a ~31k-token span, its last request at t = 0, summarised at `now`. */
async function summarise(now: number, adapterOptions?: AnthropicOptions) {
  const span = buildLogSpan();
  const parent = buildLogParent('ttl-parent', span);
  parent.append({ role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }] });
  const { summarizer, bus, summarized: routes, sent } = recordingSummarizer(adapterOptions ? { adapterOptions } : {});
  await summarizer.summarize(
    summaryInput('ttl-parent', span, { bus, now, parent: { session: parent, keptMessages: 2, lastRequestAt: 0 } }),
  );
  return { event: routes[0], sent };
}

describe('the LLM summariser and a parent cached for an hour', () => {
  it('forks a parent idle 20 minutes whose history breakpoint has a 1-hour TTL: its entry is alive, the fork reads it', async () => {
    const { event, sent } = await summarise(20 * MINUTE, { ttl: { history: '1h' } });
    expect(event?.parentWarm).toBe(true);
    expect(event?.choice).toBe('fork');
    expect(sent.map((body) => body.model)).toEqual(['claude-sonnet-4-5']);
    // The same pause with 5-minute breakpoints: the entry is gone, the fresh call is cheaper.
    const fiveMinutes = await summarise(20 * MINUTE);
    expect(fiveMinutes.event).toMatchObject({ parentWarm: false, choice: 'fresh' });
  });

  it('prices a cold fork’s writes at each zone’s TTL: 2× for a 1-hour history marker, not 1.25×', async () => {
    const { event } = await summarise(2 * 60 * MINUTE, { ttl: { history: '1h' } });
    expect(event?.parentWarm).toBe(false);
    // Sonnet 4.5: every prefix token written at $6/MTok (2 × $3); the instruction at $3.
    const prefixCost = (event?.forkInputCostUsd ?? 0) - 6e-6 * (event?.prefixTokens ?? 0);
    expect(prefixCost).toBeGreaterThan(0);
    expect(prefixCost).toBeLessThan(0.002);
  });

  it('reads a static zone whose 1-hour entry outlives the 5-minute history entry', () => {
    const base = {
      provider: 'anthropic' as const,
      mainModel: 'claude-sonnet-4-5',
      auxModel: 'claude-haiku-4-5',
      prefixTokens: 100_000,
      parentWarm: false,
      forkInstructionTokens: 0,
      freshPromptTokens: 50_000,
      expectedOutputTokens: 0,
      forkFits: true,
      freshFits: true,
      staticPrefixTokens: 40_000,
      writeTtls: { static: '1h' as const, history: '5m' as const },
    };
    // Static alive: 40k read at $0.30 + 60k written at $3.75; gone: 40k written at $6 + 60k at $3.75.
    expect(chooseSummaryRoute({ ...base, staticWarm: true }).forkInputCostUsd).toBeCloseTo(0.012 + 0.225, 9);
    expect(chooseSummaryRoute({ ...base, staticWarm: false }).forkInputCostUsd).toBeCloseTo(0.24 + 0.225, 9);
  });
});

describe('the LLM summariser when the adapter cannot convert the fork', () => {
  it('does not throw out of summarize: the fork is priced with 5-minute TTLs and its send falls back', async () => {
    const failing = {
      ...anthropicAdapter,
      convertRequest: () => {
        throw new Error('messages[1]: not convertible');
      },
    } as unknown as typeof anthropicAdapter;
    const parent = summaryParent('unconvertible');
    parent.appendUserText('Fix the build.');
    parent.append({ role: 'assistant', content: [{ type: 'text', text: 'On it.' }] });
    const { summarizer } = recordingSummarizer({ adapter: failing, reply: () => ({ content: [] }) });
    const summary = await summarizer.summarize(
      summaryInput('unconvertible', parent.history.slice(0, 1), {
        now: 0,
        parent: { session: parent, keptMessages: 1, lastRequestAt: 0 },
      }),
    );
    expect(summary.userGoal).toContain('Fix the build');
  });
});
