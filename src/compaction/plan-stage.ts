import type { CompactionLayer } from '../events/catalog.js';
import type { Message } from '../model/content.js';
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { evaluateRewriteCost, type RewriteCost } from './cost-model.js';
import { criticalCarry } from './critical-carry.js';
import { firstDifference, SUMMARY_HEADER } from './history-analysis.js';
import type { Measurement } from './measure-stage.js';
import type { RewriteContext } from './observation-masking.js';
import type { CompactionOptions } from './options.js';
import type { PipelineSessionState } from './pipeline-state.js';
import { planRewrite, type RewritePlan } from './plan-rewrite.js';
import { messagesTokens } from './request-tokens.js';
import { emptySummary, renderSummary } from './structured-summary.js';
import type { ThinkingStyleRule } from './thinking-cleaner.js';

/** Tokens a summary adds beyond its rendered carry (the summariser's prose), for the estimate. */
const SUMMARY_PROSE_ESTIMATE_TOKENS = 800;

const LAYER_STRENGTH: readonly CompactionLayer[] = ['thinking', 'media', 'light', 'ttl-pruning', 'priority', 'summary'];

/** What the rewrite would leave and what it would cost; absent when the plan has no step. */
export interface RewriteEstimate {
  critical: ReturnType<typeof criticalCarry> | null;
  tokensAfter: number;
  tokensToRebill: number;
  /** Tokens saved on every later request (negative: the rewrite grows the request). */
  saved: number;
  cost: RewriteCost;
  /** The layer reported for the rewrite: `emergency` above that threshold, else the strongest step. */
  layer: CompactionLayer;
}

export interface PlannedRewrite {
  /** The history the plan started from (the session's, untouched). */
  original: readonly Message[];
  plan: RewritePlan;
  /** The content the plan's steps take out, offloaded when the rewrite is applied. */
  rewrite: RewriteContext;
  estimate: RewriteEstimate | null;
}

/**
 * Plan stage: apply, to a copy of the history, every step the utilisation and the cache state
 * call for, then estimate the result and cost it. Nothing touches the session.
 */
export function planStage(input: {
  session: Session;
  state: PipelineSessionState;
  options: CompactionOptions;
  counter: TokenCounter;
  measured: Measurement;
  rule: ThinkingStyleRule | null;
}): PlannedRewrite {
  const { session, state, options, counter, measured } = input;
  const before = measured.tokens;
  const original = session.history;
  const rewrite: RewriteContext = { sessionId: session.id, counter, offloads: [] };
  const plan = planRewrite({
    history: original,
    counter,
    options,
    utilisation: measured.utilisation,
    cacheHot: measured.cacheHot,
    modelChanged: measured.modelChanged,
    rule: input.rule,
    fixedTokens: before.static + before.tail,
    staticEndsWithUser: session.sessionMessages.at(-1)?.role === 'user',
    rewrite,
  });
  if (plan.steps.length === 0) return { original, plan, rewrite, estimate: null };

  const { history, tailStart, refs, summaryPlanned } = plan;
  const critical = summaryPlanned ? criticalCarry(state, history.slice(0, tailStart), refs, history, tailStart) : null;
  const summaryEstimate = critical
    ? counter.countText(renderSummary(state.summary ?? emptySummary(), critical, SUMMARY_HEADER, '')) +
      SUMMARY_PROSE_ESTIMATE_TOKENS
    : 0;
  const historyAfter = summaryPlanned
    ? summaryEstimate + messagesTokens(history.slice(tailStart), counter)
    : messagesTokens(history, counter);
  const tokensAfter = before.static + historyAfter + before.tail;
  const changedFrom = summaryPlanned ? 0 : firstDifference(original, history);
  const tokensToRebill = summaryPlanned ? historyAfter : messagesTokens(history.slice(changedFrom), counter);
  const cost = evaluateRewriteCost({
    prefixBefore: before.static + before.history,
    prefixAfter: before.static + historyAfter,
    staticTokens: before.static,
    tokensToRebill,
    cacheHot: measured.cacheHot,
    expectedRemainingRequests: measured.remainingRequests,
    prices: options.prices,
  });
  const layer: CompactionLayer = measured.utilisation >= options.thresholds.emergency ? 'emergency' : strongest(plan.steps);
  return {
    original,
    plan,
    rewrite,
    estimate: { critical, tokensAfter, tokensToRebill, saved: before.total - tokensAfter, cost, layer },
  };
}

function strongest(steps: readonly CompactionLayer[]): CompactionLayer {
  let best: CompactionLayer = steps[0] ?? 'light';
  for (const step of steps) if (LAYER_STRENGTH.indexOf(step) > LAYER_STRENGTH.indexOf(best)) best = step;
  return best;
}
