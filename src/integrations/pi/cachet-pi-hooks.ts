import type { CacheBreak } from '../../cache/break/break-detector.js';
import { costOf, uncachedCostOf } from '../../cache/cost.js';
import type { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import type { AnthropicModelRow, AnthropicTtl } from '../../providers/anthropic/models.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { tailTexts } from '../shared/call-identity.js';
import { createConversationStore } from '../shared/conversation-store.js';
import { resolveIntegrationSettings } from '../shared/integration-settings.js';
import type { ExistingMarkers } from '../shared/plan-prompt-breakpoints.js';
import { planWireBreakpoints } from '../shared/plan-wire-breakpoints.js';

/** What pi-ai passes as `model` to `onPayload` (the fields Cachet reads). */
export interface PiModelLike {
  id: string;
  api: string;
  provider: string;
}

/** A pi-ai assistant message's usage (`input` excludes cache reads and writes). */
export interface PiUsageLike {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface CachetPiOptions {
  /** The conversation these calls belong to (a pi `sessionId`, say). Required: pi payloads carry no stable id. */
  conversationId: string;
  /** Volatile context for the next call (clock, memory recall), appended after the last breakpoint. */
  tail?: () => string | readonly string[] | undefined;
  ttl?: Partial<Record<'global' | 'session' | 'history', AnthropicTtl>>;
  /** pi-ai marks the system prompt, last tool and last user message itself: `replace` [default] or `keep` them. */
  existingMarkers?: ExistingMarkers;
  bus?: EventBus;
  onBreak?: (cacheBreak: CacheBreak) => void;
  tokenCounter?: TokenCounter;
  models?: readonly AnthropicModelRow[];
  clock?: () => number;
}

export interface CachetPiHooks {
  /** Pass as pi-ai's `onPayload` option: returns the payload laid out for the cache. */
  onPayload(payload: unknown, model: PiModelLike): unknown;
  /** Record a finished call's usage (`message.usage` of pi's assistant message). */
  recordUsage(message: { usage: PiUsageLike; model?: string }): Usage;
}

/**
 * pi-ai hooks for one conversation: `onPayload` applies Cachet's breakpoint plan to Anthropic
 * Messages payloads (at most four markers, lookback guard, tail after the last marker) and sets
 * `prompt_cache_key` on OpenAI payloads; every payload goes through the break detector;
 * `recordUsage` turns pi's usage into Cachet `Usage` and publishes it.
 *
 * @example
 * const cachet = cachetPiHooks({ conversationId: sessionId, tail: () => `Now: ${new Date().toISOString()}` });
 * const reply = await complete(model, context, { onPayload: cachet.onPayload });
 * cachet.recordUsage(reply);
 */
export function cachetPiHooks(options: CachetPiOptions): CachetPiHooks {
  if (typeof options.conversationId !== 'string' || options.conversationId === '') {
    throw new ValidationError('options.conversationId', 'a non-empty string');
  }
  const { existingMarkers, ttl, counter, clock } = resolveIntegrationSettings(options);
  const state = createConversationStore({ maxConversations: 1, counter, bus: options.bus }).get(options.conversationId);
  let lastModel: PiModelLike | null = null;
  let turn = 0;

  return {
    onPayload(payload, model) {
      lastModel = model;
      turn++;
      let body = payload;
      if (model.api === 'anthropic-messages') {
        const laidOut = planWireBreakpoints(payload, {
          tail: tailTexts(options.tail?.()),
          previous: state.previous,
          ttl,
          existingMarkers,
          counter,
          ...(options.models ? { models: options.models } : {}),
        });
        state.previous = laidOut.planned.plan.cacheState;
        body = laidOut.body;
      } else if (model.api.startsWith('openai') && typeof payload === 'object' && payload !== null) {
        const record = payload as Record<string, unknown>;
        body = { ...record, prompt_cache_key: record.prompt_cache_key ?? `cachet-${options.conversationId}` };
      }
      try {
        const found = state.detector.observe(body, { at: clock(), turn, step: 0 });
        if (found) options.onBreak?.(found);
      } catch {
        // An unfamiliar payload shape must never stop the call.
      }
      return body;
    },
    recordUsage(message) {
      const usage: Usage = {
        uncachedInputTokens: message.usage.input,
        cacheReadTokens: message.usage.cacheRead,
        cacheWrite5mTokens: message.usage.cacheWrite,
        cacheWrite1hTokens: 0,
        outputTokens: message.usage.output,
        reasoningTokens: 0,
        raw: message.usage,
      };
      const modelId = message.model ?? lastModel?.id ?? 'unknown';
      const pricing = lastModel?.api.startsWith('openai') ? 'openai-chat' : 'anthropic';
      options.bus?.emit('usage.recorded', options.conversationId, clock(), {
        turn,
        step: 0,
        model: modelId,
        usage,
        costUsd: costOf(usage, pricing, modelId).costUsd,
        uncachedCostUsd: uncachedCostOf(usage, pricing, modelId).costUsd,
      });
      return usage;
    },
  };
}
