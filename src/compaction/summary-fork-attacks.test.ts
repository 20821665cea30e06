import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import type { Message } from '../model/content.js';
import type { ThinkingConfig } from '../model/request.js';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { createLlmSummarizer } from './llm-summarizer.js';
import { emptySummary } from './structured-summary.js';

const REPLY = { ...emptySummary(), userGoal: 'Fix the flaky cache test' };

const span: Message[] = [
  { role: 'user', content: [{ type: 'text', text: `Read the build log:\n${'log line: cache ok\n'.repeat(8_000)}` }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Read it.' }] },
];

/**
 * Anthropic's own checks on a request with extended thinking: `budget_tokens` ≥ 1,024 and strictly
 * below `max_tokens` (a 400 otherwise; platform.claude.com extended-thinking docs).
 */
function anthropicRefusal(body: MessageCreateParamsNonStreaming): string | null {
  const thinking = body.thinking as { type: string; budget_tokens?: number } | undefined;
  if (thinking?.type !== 'enabled') return null;
  const budget = thinking.budget_tokens ?? 0;
  if (budget < 1024) return 'budget_tokens below 1024';
  if (budget >= body.max_tokens) return `max_tokens (${body.max_tokens}) must be greater than thinking.budget_tokens (${budget})`;
  return null;
}

function forkOf(thinking: ThinkingConfig, maxOutputTokens?: number) {
  const parent = new Session({
    id: 'thinking-parent',
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: 'You are a careful coding agent.' }] },
    params: { maxTokens: 32_000, thinking },
    clock: () => 0,
  });
  for (const message of span) parent.append(message);
  parent.appendUserText('Now the next file.');
  parent.append({ role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }] });
  const sent: MessageCreateParamsNonStreaming[] = [];
  const bus = new EventBus();
  const warnings: string[] = [];
  const routes: string[] = [];
  bus.on('warning.raised', (event: CachetEvent<'warning.raised'>) => warnings.push(event.payload.message));
  bus.on('compaction.summarized', (event: CachetEvent<'compaction.summarized'>) => routes.push(event.payload.choice));
  const summarizer = createLlmSummarizer({
    adapter: anthropicAdapter,
    send: async (body) => {
      sent.push(body);
      const refusal = anthropicRefusal(body);
      if (refusal) throw new Error(`400 invalid_request_error: ${refusal}`);
      return { content: [{ type: 'text', text: JSON.stringify(REPLY) }] };
    },
    model: 'claude-haiku-4-5',
    windowTokens: 200_000,
    mainModel: 'claude-sonnet-4-5',
    mainWindowTokens: 200_000,
    counter: anthropicEstimator(),
    fork: 'always',
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  });
  const run = () =>
    summarizer.summarize({
      sessionId: 'thinking-parent',
      span,
      previous: null,
      restoreIds: new Map(),
      notes: [],
      bus,
      now: 0,
      parent: { session: parent, keptMessages: 2, lastRequestAt: 0 },
    });
  return { parent, sent, warnings, routes, run };
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

  it('without thinking keeps the summary cap as the request’s max_tokens', async () => {
    const { sent, run } = forkOf({ type: 'disabled' });
    await run();
    expect(sent[0]?.max_tokens).toBe(2_000);
  });
});
