import { describe, expect, it } from 'vitest';
import { costOf } from '../../cache/cost.js';
import type { JudgeContext } from '../../cache/models/cache-verdict.js';
import { createCacheModel } from '../../cache/models/create-cache-model.js';
import { findPrice } from '../../cache/pricing.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { anthropicTurn } from '../test-support/sessions.js';
import type { Conversation } from './conversation-tracker.js';
import { comparePlan, createPlanModels } from './judge-exchange.js';
import { type PlanOptions, planCacheFields } from './plan-cache-fields.js';

type JsonRecord = Record<string, unknown>;

/** Turn `count` with the client's markers on the tools, the system prompt and the last block: where the plan puts them. */
function markedLikeThePlan(count: number): JsonRecord {
  const body = structuredClone(anthropicTurn(count, { marked: true })) as unknown as JsonRecord;
  (body.tools as JsonRecord[])[0]!.cache_control = { type: 'ephemeral' };
  return body;
}
const systemOnly = (count: number): JsonRecord => {
  const body = structuredClone(anthropicTurn(count, { marked: true })) as unknown as JsonRecord;
  for (const message of body.messages as Array<{ content: JsonRecord[] }>)
    for (const block of message.content) delete block.cache_control;
  return body;
};

/**
 * The conversation's bodies through the proxy's savings judge (lockstep, then a fork at the first
 * difference) and through two models judging every body (the reference): the figures per request.
 */
function judgeBoth(bodies: JsonRecord[], options: PlanOptions = {}) {
  const counters = { anthropic: anthropicEstimator(), openai: anthropicEstimator() };
  const models = createPlanModels(counters);
  const conversation = { id: 'c1', key: 'c1', provider: 'anthropic' } as Conversation;
  const reference = { client: createCacheModel('anthropic'), planned: createCacheModel('anthropic') };
  const modelled = (body: JsonRecord, model: 'client' | 'planned', at: number) => {
    const verdict = reference[model].judge(body, { at });
    const { inputTokens, cacheReadTokens, cacheWriteTokens } = verdict;
    return {
      inputTokens,
      cacheReadTokens,
      cacheWriteTokens,
      costUsd: costOf(verdict.usage, 'anthropic', 'claude-sonnet-5').costUsd,
    };
  };
  let previousBreakpointPosition: number | null = null;
  const forkedAt: Array<boolean> = [];
  const figures = bodies.map((clientBody, index) => {
    const at = 1_000_000 + index * 60_000;
    const context = { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition };
    const plan = planCacheFields('anthropic', clientBody, context, options);
    previousBreakpointPosition = plan.lastBreakpointPosition;
    const pair = models.of(conversation, 1000);
    const judged = comparePlan(
      pair,
      { clientBody, sentBody: plan.body, breakpoints: plan.breakpoints, ttl: options.ttl ?? '5m', at },
      'anthropic',
      'claude-sonnet-5',
    );
    forkedAt.push(pair.planned !== null);
    const client = modelled(clientBody, 'client', at);
    const planned = modelled(plan.body, 'planned', at);
    return { judged, reference: { client, planned, savedUsd: client.costUsd - planned.costUsd } };
  });
  return { figures, forked: forkedAt };
}

describe('the savings judge in lockstep', () => {
  it('judges one model while the plan keeps the client’s markers, with the figures of two', () => {
    const { figures, forked } = judgeBoth([1, 2, 3, 4, 5].map(markedLikeThePlan));
    expect(forked).toEqual([false, false, false, false, false]);
    for (const { judged, reference } of figures) expect(judged).toEqual(reference);
    // It reads: the comparison is not trivially zero.
    expect(figures.at(-1)!.judged!.planned.cacheReadTokens).toBeGreaterThan(0);
  });

  it('forks the client’s model at the first difference (the client drops its last marker), then judges each on its own', () => {
    const bodies = [
      markedLikeThePlan(1),
      markedLikeThePlan(2),
      markedLikeThePlan(3),
      systemOnly(4),
      systemOnly(5),
      markedLikeThePlan(6),
    ];
    const { figures, forked } = judgeBoth(bodies);
    expect(forked).toEqual([false, false, false, true, true, true]);
    for (const { judged, reference } of figures) expect(judged).toEqual(reference);
    // After the fork the two differ: the plan reads what the client's body no longer marks.
    expect(figures[4]!.judged!.savedUsd).not.toBe(0);
  });

  it('forks at a lookback guard the client does not place (many messages at once)', () => {
    const { figures, forked } = judgeBoth([
      markedLikeThePlan(2),
      markedLikeThePlan(3),
      markedLikeThePlan(20),
      markedLikeThePlan(21),
    ]);
    expect(forked).toEqual([false, false, true, true]);
    for (const { judged, reference } of figures) expect(judged).toEqual(reference);
  });

  it('never in lockstep: a plan TTL the client does not use, or markers the client does not place', () => {
    const longer = judgeBoth([1, 2, 3].map(markedLikeThePlan), { ttl: '1h' });
    expect(longer.forked).toEqual([true, true, true]);
    for (const { judged, reference } of longer.figures) expect(judged).toEqual(reference);
    const bare = judgeBoth([1, 2, 3].map(systemOnly));
    expect(bare.forked).toEqual([true, true, true]);
    for (const { judged, reference } of bare.figures) expect(judged).toEqual(reference);
  });
});

describe('the savings judge’s price row', () => {
  it('prices both bodies at the row it is given (the record stage’s memo), else at findPrice’s', () => {
    const counters = { anthropic: anthropicEstimator(), openai: anthropicEstimator() };
    const judge = (row?: ReturnType<typeof findPrice>) => {
      const models = createPlanModels(counters).of({ id: 'c1', key: 'c1', provider: 'anthropic' } as Conversation, 1000);
      const bodies = [systemOnly(1), systemOnly(2)];
      return bodies.map((clientBody, index) => {
        const plan = planCacheFields(
          'anthropic',
          clientBody,
          { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition: null },
          {},
        );
        const exchange = {
          clientBody,
          sentBody: plan.body,
          breakpoints: plan.breakpoints,
          ttl: '5m' as const,
          at: 1_000_000 + index * 60_000,
        };
        return row === undefined
          ? comparePlan(models, exchange, 'anthropic', 'claude-sonnet-5')
          : comparePlan(models, exchange, 'anthropic', 'claude-sonnet-5', row);
      });
    };
    const row = findPrice('anthropic', 'claude-sonnet-5')!;
    const doubled = {
      ...row,
      inputPerMTok: 2 * row.inputPerMTok,
      cacheReadPerMTok: 2 * row.cacheReadPerMTok,
      cacheWrite5mPerMTok: 2 * row.cacheWrite5mPerMTok,
      cacheWrite1hPerMTok: 2 * row.cacheWrite1hPerMTok,
    };
    const found = judge();
    expect(judge(row)).toEqual(found);
    const dearer = judge(doubled);
    expect(found.at(-1)!.client.costUsd).toBeGreaterThan(0);
    for (const [index, figures] of dearer.entries()) {
      expect(figures!.client.costUsd).toBeCloseTo(2 * found[index]!.client.costUsd, 12);
      expect(figures!.planned.costUsd).toBeCloseTo(2 * found[index]!.planned.costUsd, 12);
    }
  });
});

describe('the planned body judged from the client body’s normalisation', () => {
  it('hands the planned model the client body’s units with the plan’s markers, with the figures of a model that normalises it', () => {
    const counters = { anthropic: anthropicEstimator(), openai: anthropicEstimator() };
    const conversation = { id: 'c1', key: 'c1', provider: 'anthropic' } as Conversation;
    const derived = createPlanModels(counters).of(conversation, 1000);
    const reference = createPlanModels(counters).of(conversation, 1000);
    const given: boolean[] = [];
    let previousBreakpointPosition: number | null = null;
    for (const [index, clientBody] of [1, 2, 3, 4, 5, 6].map(systemOnly).entries()) {
      const context = { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition };
      const plan = planCacheFields('anthropic', clientBody, context, {});
      previousBreakpointPosition = plan.lastBreakpointPosition;
      const at = 1_000_000 + index * 60_000;
      const exchange = { clientBody, sentBody: plan.body, breakpoints: plan.breakpoints, ttl: '5m' as const, at };
      const watch = (models: typeof derived, onJudge: (context: JudgeContext) => JudgeContext) => {
        const planned = models.planned;
        if (planned === null) return comparePlan(models, exchange, 'anthropic', 'claude-sonnet-5');
        const judge = planned.judge.bind(planned);
        planned.judge = (body, judgeContext) => judge(body, onJudge(judgeContext));
        try {
          return comparePlan(models, exchange, 'anthropic', 'claude-sonnet-5');
        } finally {
          planned.judge = judge;
        }
      };
      const judged = watch(derived, (judgeContext) => {
        given.push(judgeContext.normalized !== undefined);
        return judgeContext;
      });
      const expected = watch(reference, ({ normalized: _normalisesItself, ...rest }) => rest);
      expect(judged).toEqual(expected);
    }
    // Forked at the first body (the plan marks what the client does not); each later one is judged from the client's units.
    expect(given).toEqual([true, true, true, true, true]);
  });
});
