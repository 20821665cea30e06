import { describe, expect, it } from 'vitest';
import { expandWorkload } from '../workloads/expand-workload.js';
import { type WorkloadFile, workloadFileSchema } from '../workloads/workload-schema.js';
import { simulateWorkload } from './simulate-workload.js';
import { simulationBaseline } from './simulation-baseline.js';
import type { StrategyName } from './strategy.js';

type Thinking = 'disabled' | 'adaptive' | { budgetTokens: number } | undefined;

/**
 * A Claude session with long pauses, both inside a tool loop (a 12-minute tool run: pi warms
 * while its agent is active) and between turns (12 minutes), on a 60k-token prefix: every
 * pinging strategy pings here unless the request cannot take a pre-warm request.
 */
function pausedSession(thinking: Thinking, provider = 'anthropic', model = 'claude-sonnet-4-5'): WorkloadFile {
  return workloadFileSchema.parse({
    name: 'paused-thinking',
    description: 'long pauses on a large prefix',
    provider,
    model,
    start: '2026-11-20T09:00:00Z',
    global: {
      persona: 'You are a careful agent.',
      tools: [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object' } }],
    },
    session: { documents: [{ title: 'Spec', tokens: 60_000, kind: 'prose' }] },
    turns: [0, 1, 2, 3].map((index) => ({
      user: `question ${index}`,
      after: index === 0 ? '1m' : '12m',
      ...(thinking === undefined ? {} : { params: { thinking } }),
      steps: [
        {
          text: 'running the suite',
          latency: '12m',
          toolCalls: [{ name: 'read_file', input: { path: `f${index}` }, result: { tokens: 900, kind: 'code' } }],
        },
        { text: `answer ${index}` },
      ],
    })),
  });
}

const PINGING = [
  ['aider-keepalive', 'markers'],
  ['pi-warming', 'pi'],
] as const;

function run(file: WorkloadFile) {
  const workload = expandWorkload(file);
  const baseline = simulationBaseline(workload, workload.provider, workload.model);
  return (strategy: StrategyName) => simulateWorkload(workload, { strategy, baseline });
}

describe('keep-alive pings on a request with extended thinking', () => {
  it('are sent on the same session without thinking (the pauses make every pinging strategy ping)', () => {
    for (const thinking of [undefined, 'disabled'] as const) {
      const simulate = run(pausedSession(thinking));
      for (const [design, base] of PINGING) {
        const pinged = simulate(design);
        expect(pinged.pings.length, `${design}, thinking ${thinking}`).toBeGreaterThan(0);
        expect(pinged.totals.costUsd).toBeLessThan(simulate(base).totals.costUsd);
      }
      expect(simulate('cachet').pings.length, `cachet, thinking ${thinking}`).toBeGreaterThan(0);
    }
  });

  it.each([
    ['a thinking budget', { budgetTokens: 4096 }],
    ['adaptive thinking', 'adaptive'],
  ] as const)(
    'are never sent with %s: Anthropic refuses max_tokens: 0 there, so a pinging design costs what its layout does',
    (_, thinking) => {
      for (const [provider, model] of [
        ['anthropic', 'claude-sonnet-4-5'],
        ['bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
      ] as const) {
        const simulate = run(pausedSession(thinking, provider, model));
        for (const [design, base] of PINGING) {
          const pinged = simulate(design);
          expect(pinged.pings, `${design} on ${provider}`).toEqual([]);
          expect(pinged.totals.costUsd).toBeCloseTo(simulate(base).totals.costUsd, 12);
        }
        expect(simulate('cachet').pings, `cachet on ${provider}`).toEqual([]);
      }
    },
  );

  it('leave Cachet writing at the hour where its pings cannot go, not re-writing the prefix every request', () => {
    const simulate = run(pausedSession({ budgetTokens: 4096 }));
    const cachet = simulate('cachet');
    // It priced its 1-hour writes against pings it could not send: every request re-wrote 60k tokens (5.7× the oracle).
    expect(cachet.requests.slice(1).every((request) => request.cacheReadTokens > 50_000)).toBe(true);
    expect(cachet.totals.costUsd).toBeLessThan(1.25 * (cachet.totals.oracleCostUsd as number));
  });
});
