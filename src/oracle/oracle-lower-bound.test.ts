import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { simulateWorkload } from '../simulate/simulate-workload.js';
import { simulationBaseline } from '../simulate/simulation-baseline.js';
import { STRATEGY_NAMES } from '../simulate/strategy.js';
import { expandWorkload } from '../workloads/expand-workload.js';
import { type WorkloadFile, workloadFileSchema } from '../workloads/workload-schema.js';

const word = fc.constantFrom('invoice', 'retry', 'schema', 'cache', 'parser', 'deploy', 'queue', 'token', 'report', 'lint');
const sentence = fc.array(word, { minLength: 3, maxLength: 40 }).map((words) => words.join(' '));
const duration = fc.constantFrom('5s', '40s', '3m', '6m', '20m', '70m');

const toolCall = fc.record({
  name: fc.constantFrom('read_file', 'run_command'),
  input: fc.record({ path: word }),
  result: fc.oneof(
    sentence,
    fc.record({ tokens: fc.integer({ min: 20, max: 2500 }), kind: fc.constantFrom('code', 'log', 'json') }),
  ),
});

const turn = fc
  .record({
    user: sentence,
    after: duration,
    memoryRecall: fc.option(sentence, { nil: undefined }),
    time: fc.boolean(),
    loop: fc.array(fc.array(toolCall, { minLength: 1, maxLength: 3 }), { maxLength: 3 }),
    discover: fc.boolean(),
    // Subagent calls after the first tool step (a fan-out), and how long the last one runs.
    subagents: fc.array(sentence, { maxLength: 3 }),
    subagentRun: duration,
    answer: sentence,
    // Extended thinking takes no pre-warm request: neither a strategy nor the oracle may ping after it.
    thinking: fc.option(fc.constantFrom('adaptive' as const, 'disabled' as const, { budgetTokens: 2048 }), { nil: undefined }),
    // Switch to the provider's other model (1) or back to the session's own (0) from this turn on: A → B → A.
    switchTo: fc.option(fc.constantFrom(0 as const, 1 as const), { nil: undefined, freq: 3 }),
    // A screenshot with the user's message: on Anthropic's rules its first appearance re-keys the messages' cache.
    image: fc.option(
      fc.constantFrom({ name: 'screen.png', width: 1170, height: 2532 }, { name: 'chart.png', width: 640, height: 480 }),
      {
        nil: undefined,
        freq: 4,
      },
    ),
  })
  .map(({ user, after, memoryRecall, time, loop, discover, subagents, subagentRun, answer, thinking, switchTo, image }) => ({
    user,
    after,
    switchTo,
    ...(image ? { images: [image] } : {}),
    ...(thinking ? { params: { thinking } } : {}),
    tail: { time, ...(memoryRecall ? { memoryRecall } : {}) },
    steps: [
      ...loop.flatMap((calls, index) => [
        {
          text: `step ${index}`,
          toolCalls: calls,
          latency: index % 2 === 0 ? '4s' : '30s',
          ...(discover && index === 0 ? { discoverTools: ['__discover__'] } : {}),
        },
        ...(index === 0
          ? subagents.map((task, subagent) => ({
              subagent: { task, latency: subagent === subagents.length - 1 ? subagentRun : '1s' },
            }))
          : []),
      ]),
      { text: answer },
    ],
  }));

/** The model each generated session runs on (Bedrock twice: Claude with Anthropic's rules, Nova with its own). */
const MODELS = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-5',
  'openai-compatible': 'qwen3-8b',
  gemini: 'gemini-2.5-flash',
  bedrock: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'bedrock-nova': 'us.amazon.nova-pro-v1:0',
} as const;

/** A random small session: persona and attachment sizes around the minimum, 1–4 turns, gaps from seconds to over an hour. */
const workloadFile = fc
  .record({
    provider: fc.constantFrom('anthropic', 'openai-chat', 'openai-compatible', 'gemini', 'bedrock', 'bedrock-nova'),
    documentTokens: fc.integer({ min: 1, max: 5000 }),
    turns: fc.array(turn, { minLength: 1, maxLength: 4 }),
  })
  .map(({ provider, documentTokens, turns }): WorkloadFile => {
    let discovered = 0;
    const library: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> = [];
    const other = OTHER_MODELS[provider];
    const withTools = turns.map(({ switchTo, ...entry }) => ({
      ...entry,
      ...(switchTo === undefined || other === undefined ? {} : { model: switchTo === 1 ? other : MODELS[provider] }),
      steps: entry.steps.map((step) => {
        if (!('discoverTools' in step)) return step;
        const name = `tool_${++discovered}`;
        library.push({ name, description: `Discovered tool ${name} for the ${name} service.`, inputSchema: { type: 'object' } });
        return { ...step, discoverTools: [name] };
      }),
    }));
    return workloadFileSchema.parse({
      name: 'random-session',
      description: 'generated',
      provider: provider === 'bedrock-nova' ? 'bedrock' : provider,
      model: MODELS[provider],
      start: '2026-11-20T09:00:00Z',
      global: {
        persona: 'You are a careful agent. Read before you edit and report what you changed.',
        tools: [
          {
            name: 'read_file',
            description: 'Read a file.',
            inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
          },
          { name: 'run_command', description: 'Run a command.', inputSchema: { type: 'object' } },
        ],
      },
      session: { documents: [{ title: 'Spec', tokens: documentTokens, kind: 'prose' }] },
      toolLibrary: library,
      turns: withTools,
    });
  });

type ProviderCase = keyof typeof MODELS;

/** The model a generated turn may switch to and back from (none on the local engine: one model per server). */
const OTHER_MODELS: Partial<Record<ProviderCase, string>> = {
  anthropic: 'claude-haiku-4-5',
  'openai-chat': 'gpt-5-mini',
  gemini: 'gemini-2.5-pro',
  bedrock: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
  'bedrock-nova': 'us.amazon.nova-lite-v1:0',
};

/**
 * Required cases, whatever the random draws: on `provider`, pauses that make every pinging
 * strategy ping (6 and 70 minutes, plus 1 and 20 on Anthropic) and a three-subagent fan-out that
 * runs 6 minutes, every turn.
 */
function pausesAndFanOut(provider: ProviderCase, pauses: readonly string[], thinking?: 'adaptive'): WorkloadFile {
  return workloadFileSchema.parse({
    name: `pauses-and-fan-out-${provider}${thinking ? '-thinking' : ''}`,
    description: 'required example',
    provider: provider === 'bedrock-nova' ? 'bedrock' : provider,
    model: MODELS[provider],
    start: '2026-11-20T09:00:00Z',
    global: {
      persona: 'You are a careful agent.',
      tools: [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object' } }],
    },
    session: { documents: [{ title: 'Spec', tokens: 4000, kind: 'prose' }] },
    turns: pauses.map((after, index) => ({
      user: `question ${index}`,
      after,
      // Thinking every other turn: pings are refused after those turns only.
      ...(thinking && index % 2 === 0 ? { params: { thinking } } : {}),
      steps: [
        {
          text: 'reading',
          toolCalls: [{ name: 'read_file', input: { path: `f${index}` }, result: { tokens: 800, kind: 'code' } }],
        },
        { subagent: { task: `check part A of f${index}` } },
        { subagent: { task: `check part B of f${index}` } },
        { subagent: { task: `check part C of f${index}`, latency: '6m' } },
        { text: `answer ${index}` },
      ],
    })),
  });
}

/** One required session per provider and rule set, so every run covers all of them. */
const REQUIRED_SESSIONS: WorkloadFile[] = [
  ...(Object.keys(MODELS) as ProviderCase[]).map((provider) =>
    pausesAndFanOut(provider, provider === 'anthropic' ? ['1m', '6m', '20m', '70m'] : ['6m', '70m']),
  ),
  pausesAndFanOut('anthropic', ['1m', '6m', '20m', '70m'], 'adaptive'),
  pausesAndFanOut('bedrock', ['6m', '20m', '70m'], 'adaptive'),
];

describe('the hindsight oracle is a lower bound', () => {
  it('no strategy costs less than the oracle on random workloads', { timeout: 600_000 }, () => {
    fc.assert(
      fc.property(workloadFile, (file) => {
        const workload = expandWorkload(file);
        // The ideal and the oracle once per session, as the demo measures every strategy against them.
        const baseline = simulationBaseline(workload, workload.provider, workload.model);
        for (const strategy of STRATEGY_NAMES) {
          const result = simulateWorkload(workload, { strategy, baseline });
          const totals = result.totals;
          if (result.oracle.priced) {
            expect(totals.costUsd, `${strategy} on ${file.provider}`).toBeGreaterThanOrEqual(
              (totals.oracleCostUsd as number) - 1e-12,
            );
          } else {
            expect(totals.inputTokens - totals.cacheReadTokens, `${strategy} on ${file.provider}`).toBeGreaterThanOrEqual(
              totals.oracleProcessedTokens,
            );
          }
          expect(totals.regret).not.toBeNull();
        }
      }),
      { numRuns: propertyRuns(6), examples: REQUIRED_SESSIONS.map((file) => [file] as [WorkloadFile]) },
    );
  });
});
