import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import type { ThinkingConfig, ToolChoice } from '../model/request.js';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import { assemble } from '../session/assemble.js';
import { emptySummary } from './structured-summary.js';
import { buildLogParent, buildLogSpan, recordingSummarizer, summaryInput } from './test-support/summary-parent.js';

const REPLY = { ...emptySummary(), userGoal: 'Fix the flaky cache test' };

/** Output limits of the models these tests use (platform.claude.com models overview). */
const OUTPUT_LIMITS: Record<string, number> = { 'claude-sonnet-4-5': 64_000, 'claude-haiku-4-5': 64_000 };

/**
 * Anthropic's own checks on a request with extended thinking: `budget_tokens` ≥ 1,024 and strictly
 * below `max_tokens` (a 400 otherwise; platform.claude.com extended-thinking docs).
 */
function anthropicRefusal(body: MessageCreateParamsNonStreaming): string | null {
  const limit = OUTPUT_LIMITS[body.model];
  if (limit !== undefined && body.max_tokens > limit) {
    return `max_tokens: ${body.max_tokens} > ${limit}, which is the maximum allowed number of output tokens for ${body.model}`;
  }
  const thinking = body.thinking as { type: string; budget_tokens?: number } | undefined;
  if (thinking?.type !== 'enabled') return null;
  const budget = thinking.budget_tokens ?? 0;
  if (budget < 1024) return 'budget_tokens below 1024';
  if (budget >= body.max_tokens) return `max_tokens (${body.max_tokens}) must be greater than thinking.budget_tokens (${budget})`;
  return null;
}

function forkOf(
  thinking: ThinkingConfig,
  maxOutputTokens?: number,
  route: { fork?: 'always' | 'auto'; forkThinkingTokens?: number; toolChoice?: ToolChoice; parentMaxTokens?: number } = {},
) {
  const span = buildLogSpan();
  const parent = buildLogParent('thinking-parent', span, {
    tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }],
    params: {
      maxTokens: route.parentMaxTokens ?? 32_000,
      thinking,
      ...(route.toolChoice ? { toolChoice: route.toolChoice } : {}),
    },
  });
  parent.append({ role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }] });
  const {
    summarizer,
    bus,
    summarized: priced,
    sent,
  } = recordingSummarizer({
    reply: (body) => {
      const refusal = anthropicRefusal(body);
      if (refusal) throw new Error(`400 invalid_request_error: ${refusal}`);
      // A forced tool choice makes the model answer with a tool call, never text.
      if (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool') {
        return { content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }] };
      }
      return { content: [{ type: 'text', text: JSON.stringify(REPLY) }] };
    },
    fork: route.fork ?? 'always',
    ...(route.forkThinkingTokens === undefined ? {} : { forkThinkingTokens: route.forkThinkingTokens }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  });
  const warnings: string[] = [];
  const routes: string[] = [];
  bus.on('warning.raised', (event: CachetEvent<'warning.raised'>) => warnings.push(event.payload.message));
  bus.on('compaction.summarized', (event: CachetEvent<'compaction.summarized'>) => routes.push(event.payload.choice));
  const run = () =>
    summarizer.summarize(
      summaryInput('thinking-parent', span, { bus, now: 0, parent: { session: parent, keptMessages: 2, lastRequestAt: 0 } }),
    );
  return { parent, sent, warnings, routes, priced, run };
}

describe('the LLM summariser’s fork of a parent with extended thinking', () => {
  it.each([
    ['a budget above the summary cap', { type: 'enabled', budgetTokens: 8_000 }, undefined],
    ['a budget equal to the summary cap', { type: 'enabled', budgetTokens: 2_000 }, undefined],
    ['a budget above a small summary cap', { type: 'enabled', budgetTokens: 1_024 }, 500],
    ['adaptive thinking', { type: 'adaptive' }, undefined],
  ] as const)(
    'with %s is a request Anthropic accepts, on the parent’s thinking setting (its messages cache key)',
    async (_, thinking, cap) => {
      const { parent, sent, warnings, routes, run } = forkOf(thinking, cap);
      const summary = await run();
      expect(routes).toEqual(['fork']);
      expect(sent).toHaveLength(1);
      const body = sent[0] as MessageCreateParamsNonStreaming;
      expect(anthropicRefusal(body)).toBeNull();
      expect(warnings).toEqual([]);
      expect(summary.userGoal).toBe(REPLY.userGoal);
      // Still the parent's cache key: the same thinking setting, and its prefix byte for byte.
      const parentBody = anthropicAdapter.convertRequest(assemble(parent)).body;
      expect(body.thinking).toEqual(parentBody.thinking);
      expect(JSON.stringify(body.messages.slice(0, -1))).toBe(JSON.stringify(parentBody.messages));
    },
  );

  it('with a budget just below the parent’s max_tokens at the model’s output limit stays within that limit', async () => {
    // Claude Code's MAX_THINKING_TOKENS=63999 on a 64k-output model: budget + cap would be 65,999.
    const { sent, warnings, routes, run } = forkOf({ type: 'enabled', budgetTokens: 63_999 }, undefined, {
      parentMaxTokens: 64_000,
    });
    const summary = await run();
    expect(routes).toEqual(['fork']);
    expect(anthropicRefusal(sent[0] as MessageCreateParamsNonStreaming)).toBeNull();
    expect(sent[0]?.max_tokens).toBe(64_000);
    expect(warnings).toEqual([]);
    expect(summary.userGoal).toBe(REPLY.userGoal);
  });

  it('without thinking keeps the summary cap as the request’s max_tokens', async () => {
    const { sent, run } = forkOf({ type: 'disabled' });
    await run();
    expect(sent[0]?.max_tokens).toBe(2_000);
  });
});

describe('the LLM summariser’s route choice for a parent with extended thinking', () => {
  // A warm Sonnet 4.5 parent whose span is most of its ~40k-token prefix: without thinking the
  // fork (a read at $0.30/MTok, 1,000 output tokens at $15) undercuts a fresh Haiku call ($1, $5).
  it('forks a warm parent without thinking (the fork is cheaper)', async () => {
    const { sent, priced, run } = forkOf({ type: 'disabled' }, undefined, { fork: 'auto' });
    await run();
    expect(priced[0]).toMatchObject({ choice: 'fork', forkThinkingTokens: 0 });
    expect(sent[0]?.model).toBe('claude-sonnet-4-5');
  });

  it.each([
    ['an 8,000-token budget', { type: 'enabled', budgetTokens: 8_000 }, 8_000],
    ['adaptive thinking', { type: 'adaptive' }, 4_000],
  ] as const)('prices the fork’s thinking with %s, and calls Haiku fresh when that is cheaper', async (_, thinking, tokens) => {
    const { sent, priced, run } = forkOf(thinking, undefined, { fork: 'auto' });
    await run();
    const event = priced[0];
    expect(event).toMatchObject({ choice: 'fresh', model: 'claude-haiku-4-5', forkThinkingTokens: tokens });
    // The event's fork price is its input plus the reply and the thinking, both at Sonnet's $15/MTok.
    expect(event?.forkCostUsd).toBeCloseTo((event?.forkInputCostUsd ?? 0) + (1_000 + tokens) * 15e-6, 9);
    expect(event?.forkCostUsd).toBeGreaterThan(event?.freshCostUsd ?? Number.POSITIVE_INFINITY);
    expect(event?.reason).toContain(`${tokens} thinking tokens included`);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.model).toBe('claude-haiku-4-5');
    expect(sent[0]?.thinking).toBeUndefined();
  });

  it('still forks when the caller expects little thinking (forkThinkingTokens), keeping the whole budget in max_tokens', async () => {
    const { sent, priced, run } = forkOf({ type: 'enabled', budgetTokens: 8_000 }, undefined, {
      fork: 'auto',
      forkThinkingTokens: 300,
    });
    await run();
    expect(priced[0]).toMatchObject({ choice: 'fork', forkThinkingTokens: 300 });
    expect(sent[0]?.max_tokens).toBe(2_000 + 8_000);
    expect(priced[0]?.forkCostUsd).toBeLessThan(priced[0]?.freshCostUsd ?? 0);
  });

  it('gives an adaptive fork room to think before its reply (max_tokens = the summary cap + the allowance)', async () => {
    const { sent, run } = forkOf({ type: 'adaptive' });
    await run();
    expect(sent[0]?.max_tokens).toBe(2_000 + 4_000);
  });
});

describe('the LLM summariser and a parent that forces a tool call', () => {
  it.each([
    ['any', { type: 'any' }, 'auto'],
    ['one named tool', { type: 'tool', name: 'read_file' }, 'auto'],
    ['any, under fork: always', { type: 'any' }, 'always'],
  ] as const)(
    '(tool_choice %s) calls the auxiliary model fresh: a fork would reply with a tool call',
    async (_, toolChoice, fork) => {
      const { sent, priced, warnings, run } = forkOf({ type: 'disabled' }, undefined, { fork, toolChoice });
      const summary = await run();
      expect(priced[0]).toMatchObject({ choice: 'fresh', model: 'claude-haiku-4-5' });
      expect(priced[0]?.reason).toContain('forces a tool call');
      // One call, to Haiku, and the summary is the model's (not the extractive fallback after a wasted fork).
      expect(sent.map((body) => body.model)).toEqual(['claude-haiku-4-5']);
      expect(warnings).toEqual([]);
      expect(summary.userGoal).toBe(REPLY.userGoal);
    },
  );

  it('still forks a warm parent whose tool choice leaves the model free (auto)', async () => {
    const { sent, priced, run } = forkOf({ type: 'disabled' }, undefined, { fork: 'auto', toolChoice: { type: 'auto' } });
    const summary = await run();
    expect(priced[0]?.choice).toBe('fork');
    expect(sent.map((body) => body.model)).toEqual(['claude-sonnet-4-5']);
    expect(summary.userGoal).toBe(REPLY.userGoal);
  });
});
