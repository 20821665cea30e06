import { costOf, uncachedCostOf } from '../../cache/cost.js';
import type { EventBus } from '../../events/event-bus.js';
import type { Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/provider-id.js';
import type { HookReporter } from './contained-hooks.js';

export interface PublishUsageInput {
  reporter: HookReporter;
  /** The hook, for the report (`wrapGenerate`, `recordUsage`, ...). */
  where: string;
  bus: EventBus | undefined;
  conversationId: string;
  at: number;
  turn: number;
  step: number;
  model: string;
  pricing: ProviderId;
  /** Usage as read from the host library: checked before anything is published. */
  usage: unknown;
}

/**
 * Publishes one call's usage as `usage.recorded` when its figures are whole non-negative counts
 * and its cost is a finite number; otherwise nothing is published and the problem is reported
 * (`onError`, `warning.raised`). Returns the checked usage, or null.
 */
export function publishUsage(input: PublishUsageInput): Usage | null {
  const { reporter, where, conversationId } = input;
  const usage = reporter.checkedUsage(input.usage, where, conversationId);
  if (!usage || !input.bus) return usage;
  try {
    const costUsd = reporter.checkedCost(costOf(usage, input.pricing, input.model).costUsd, where, conversationId);
    const uncachedCostUsd = reporter.checkedCost(
      uncachedCostOf(usage, input.pricing, input.model).costUsd,
      where,
      conversationId,
    );
    if (costUsd === null || uncachedCostUsd === null) return usage;
    input.bus.emit('usage.recorded', conversationId, input.at, {
      turn: input.turn,
      step: input.step,
      model: input.model,
      usage,
      costUsd,
      uncachedCostUsd,
    });
  } catch (error) {
    reporter.report(error, where, conversationId);
  }
  return usage;
}
