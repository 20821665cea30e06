import type { CompactionLayer } from '../events/catalog.js';
import type { Message } from '../model/content.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { classifyToolResults, firstDifference, protectedTailStart, type ToolResultRef } from './history-analysis.js';
import { applyMediaWindow } from './media-window.js';
import { dedupeRepeatedReads, maskToolResult, type RewriteContext, truncateLargeResults } from './observation-masking.js';
import type { CompactionOptions } from './options.js';
import { messagesTokens } from './request-tokens.js';
import { backfillReasoning, cleanThinking, type ThinkingStyleRule } from './thinking-cleaner.js';

export interface PlanRewriteInput {
  history: readonly Message[];
  counter: TokenCounter;
  options: CompactionOptions;
  utilisation: number;
  cacheHot: boolean;
  modelChanged: boolean;
  /** Thinking style of the session's model (null: leave reasoning alone). */
  rule: ThinkingStyleRule | null;
  /** Tokens the rewrite cannot change: static zones and the turn tail. */
  fixedTokens: number;
  staticEndsWithUser: boolean;
  /** Collects the content each step takes out (offloaded before the rewrite is applied). */
  rewrite: RewriteContext;
}

export interface RewritePlan {
  history: Message[];
  steps: CompactionLayer[];
  tailStart: number;
  refs: ToolResultRef[];
  /** The span before `tailStart` is to be replaced by a summary (written only if the plan is applied). */
  summaryPlanned: boolean;
  /** A correctness fix (reasoning back-fill) that applies whatever the cost model says. */
  mandatory: boolean;
  warnings: string[];
}

/**
 * Plan a rewrite: apply, to a copy of the history, every step the utilisation and the cache
 * state call for (thinking back-fill, media window, light compression, cold-cache pruning,
 * priority masking, then mark a summary as needed). Pure with respect to the session; the
 * caller costs the plan and applies it or not.
 */
export function planRewrite(input: PlanRewriteInput): RewritePlan {
  const { counter, options, utilisation, cacheHot, modelChanged, rule, rewrite } = input;
  const { monitor, light, full } = options.thresholds;
  const window = options.windowTokens;
  const warnings: string[] = [];
  let history: Message[] = input.history.slice();
  const steps: CompactionLayer[] = [];
  const tailStart = protectedTailStart(history, counter, Math.floor(options.tailBudgetShare * window));
  const refs = classifyToolResults(history, counter, { tailStart, importantRecentTurns: options.importantRecentTurns });

  // A back-fill is a correctness fix (the provider rejects the history without it), not a saving:
  // it is applied whatever the cost model says. The model switch has broken the cache anyway.
  let mandatory = false;
  if (modelChanged && rule?.requiresReasoningOnToolCalls) {
    const filled = backfillReasoning(history);
    if (filled.changed) {
      history = filled.history;
      steps.push('thinking');
      mandatory = true;
    }
  }
  if (applyMediaWindow(history, options.mediaWindowMessages, rewrite) > 0) steps.push('media');
  if (utilisation >= light) {
    const saved =
      dedupeRepeatedReads(history, refs, tailStart, rewrite) +
      truncateLargeResults(
        history,
        refs,
        tailStart,
        {
          thresholdTokens: options.lightTruncateTokens,
          headTokens: Math.min(options.ingestionHeadTokens, Math.floor(options.lightTruncateTokens * 0.4)),
          tailTokens: Math.min(options.ingestionTailTokens, Math.floor(options.lightTruncateTokens * 0.15)),
        },
        rewrite,
      );
    if (saved > 0) steps.push('light');
  }
  if (!cacheHot && utilisation >= monitor) {
    let saved = 0;
    for (const ref of refs) {
      if (ref.messageIndex >= tailStart || ref.priority === 'critical' || ref.tokens <= options.maskMinTokens) continue;
      saved += maskToolResult(history, ref, rewrite, 'ttl-pruning');
    }
    if (saved > 0) steps.push('ttl-pruning');
  }
  const target = options.targetUtilisation * window;
  let summaryPlanned = false;
  if (utilisation >= full) {
    let current = input.fixedTokens + messagesTokens(history, counter);
    let saved = 0;
    for (const tier of ['standard', 'important'] as const) {
      for (const ref of refs) {
        if (current <= target) break;
        if (ref.messageIndex >= tailStart || ref.priority !== tier || ref.tokens <= options.maskMinTokens) continue;
        const gain = maskToolResult(history, ref, rewrite, 'priority');
        saved += gain;
        current -= gain;
      }
    }
    if (saved > 0) steps.push('priority');
    if (current > target && tailStart > 0) {
      if (input.staticEndsWithUser) {
        warnings.push('the session static zone ends with a user message; no summary can follow it');
      } else {
        summaryPlanned = true;
        steps.push('summary');
      }
    }
  }
  const firstChanged = firstDifference(input.history, history);
  if (steps.length > 0 && rule && firstChanged < history.length) {
    // Riding along with a rewrite costs nothing more when it starts no earlier.
    const cleaned = cleanThinking(history, rule.style, firstChanged);
    if (cleaned.changed) {
      history = cleaned.history;
      if (!steps.includes('thinking')) steps.unshift('thinking');
    }
  }
  return { history, steps, tailStart, refs, summaryPlanned, mandatory, warnings };
}
