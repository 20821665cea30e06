import { describe, expect, it } from 'vitest';
import { simulateWorkload } from '../simulate/simulate-workload.js';
import { simulationBaseline } from '../simulate/simulation-baseline.js';
import { STRATEGY_NAMES } from '../simulate/strategy.js';
import { expandWorkload } from '../workloads/expand-workload.js';
import { type WorkloadFile, workloadFileSchema } from '../workloads/workload-schema.js';

/**
 * A session that leaves its model for a turn and comes back: the provider keeps the first model's
 * entries meanwhile, so every strategy reads them on its return. The oracle must read them too, or
 * it is no lower bound (it read nothing across a model change, and every strategy beat it).
 */
function switchBack(
  provider: string,
  models: readonly string[],
  afters: readonly string[],
  documentTokens = 20_000,
): WorkloadFile {
  return workloadFileSchema.parse({
    name: 'switch-back',
    description: 'a model switch and back',
    provider,
    model: models[0],
    start: '2026-11-20T09:00:00Z',
    global: {
      persona: 'You are a careful agent.',
      tools: [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object' } }],
    },
    session: { documents: [{ title: 'Spec', tokens: documentTokens, kind: 'prose' }] },
    turns: models.map((model, index) => ({
      user: `question ${index}`,
      after: afters[index] ?? '1m',
      ...(index > 0 ? { model } : {}),
      steps: [
        {
          text: 'reading',
          toolCalls: [{ name: 'read_file', input: { path: `f${index}` }, result: { tokens: 900, kind: 'code' } }],
        },
        { text: `answer ${index}` },
      ],
    })),
  });
}

const SONNET = 'claude-sonnet-4-5';
const HAIKU = 'claude-haiku-4-5';
const BEDROCK_SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const BEDROCK_HAIKU = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';

const CASES: Array<[string, WorkloadFile]> = [
  ['anthropic A→B→A within 5 minutes', switchBack('anthropic', [SONNET, HAIKU, SONNET], ['1m', '1m', '1m'])],
  ['anthropic A→B→A within the hour', switchBack('anthropic', [SONNET, HAIKU, SONNET], ['1m', '3m', '3m'])],
  ['anthropic A→B→C→A', switchBack('anthropic', [SONNET, HAIKU, 'claude-opus-4-5', SONNET], ['1m', '1m', '1m', '1m'])],
  ['anthropic A→B→A→B', switchBack('anthropic', [SONNET, HAIKU, SONNET, HAIKU], ['1m', '1m', '1m', '1m'])],
  ['anthropic A→B→A past the hour', switchBack('anthropic', [SONNET, HAIKU, SONNET], ['1m', '40m', '40m'])],
  ['anthropic small prefix A→B→A', switchBack('anthropic', [SONNET, HAIKU, SONNET], ['1m', '1m', '1m'], 1200)],
  ['bedrock A→B→A', switchBack('bedrock', [BEDROCK_SONNET, BEDROCK_HAIKU, BEDROCK_SONNET], ['1m', '1m', '1m'])],
  ['openai A→B→A', switchBack('openai-chat', ['gpt-5', 'gpt-5-mini', 'gpt-5'], ['1m', '1m', '1m'])],
  ['gemini A→B→A', switchBack('gemini', ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.5-flash'], ['1m', '1m', '1m'])],
];

/**
 * Six tool steps on Haiku 4.5 (4,096-token minimum, a ~2,800-token prefix), then six on Sonnet 4.5
 * (1,024): padding pays on Haiku only, and a strategy drops it after the switch.
 */
function padThenSwitch(): WorkloadFile {
  return workloadFileSchema.parse({
    name: 'pad-then-switch',
    description: 'a padded model, then one that needs no padding',
    provider: 'anthropic',
    model: HAIKU,
    start: '2026-11-20T09:00:00Z',
    global: {
      persona: 'You are a careful agent.',
      tools: [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object' } }],
    },
    session: { documents: [{ title: 'Spec', tokens: 2000, kind: 'prose' }] },
    turns: [HAIKU, SONNET].map((model, index) => ({
      user: `question ${index}`,
      after: '1m',
      ...(index > 0 ? { model } : {}),
      steps: [
        ...Array.from({ length: 6 }, (_, step) => ({
          text: `step ${step}`,
          latency: '4s',
          toolCalls: [{ name: 'read_file', input: { path: `f${index}-${step}` }, result: { tokens: 300, kind: 'code' } }],
        })),
        { text: `answer ${index}` },
      ],
    })),
  });
}

describe('the oracle stays a lower bound when a session switches model and comes back', () => {
  it.each(CASES)('%s', (_, file) => {
    const workload = expandWorkload(file);
    const baseline = simulationBaseline(workload, workload.provider, workload.model);
    expect(baseline.oracle.priced).toBe(true);
    for (const strategy of STRATEGY_NAMES) {
      const { totals } = simulateWorkload(workload, { strategy, baseline });
      expect(totals.costUsd, strategy).toBeGreaterThanOrEqual((totals.oracleCostUsd as number) - 1e-12);
    }
  });

  it('pads for each model’s own minimum: the padding that pays on Haiku is not carried onto Sonnet', () => {
    // With one padding for the whole session the oracle cost $0.0455 here and cachet $0.0409.
    const workload = expandWorkload(padThenSwitch());
    const baseline = simulationBaseline(workload, workload.provider, workload.model);
    for (const strategy of STRATEGY_NAMES) {
      const { totals } = simulateWorkload(workload, { strategy, baseline });
      expect(totals.costUsd, strategy).toBeGreaterThanOrEqual((totals.oracleCostUsd as number) - 1e-12);
    }
    expect(baseline.oracle.paddingTokens).toBeGreaterThan(0);
  });

  it('a strategy really reads the first model’s entries on its return (the case the oracle missed)', () => {
    const workload = expandWorkload(CASES[0]?.[1] as WorkloadFile);
    const { requests } = simulateWorkload(workload, { strategy: 'cachet' });
    const firstOfReturn = requests.find((request) => request.turn === 3);
    expect(firstOfReturn?.cacheReadTokens).toBeGreaterThan(15_000);
  });
});
