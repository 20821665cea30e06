import type { CacheBreak } from '../../cache/break/break-detector.js';
import type { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import type { AnthropicModelRow, AnthropicTtl } from '../../providers/anthropic/models.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { type ContainedHookOptions, hookReporter } from '../shared/contained-hooks.js';
import { createConversationStore } from '../shared/conversation-store.js';
import { resolveIntegrationSettings } from '../shared/integration-settings.js';
import type { ExistingMarkers } from '../shared/plan-prompt-breakpoints.js';
import { planWireBreakpoints } from '../shared/plan-wire-breakpoints.js';
import { publishUsage } from '../shared/publish-usage.js';
import { resolveTail } from '../shared/resolve-tail.js';

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

export interface CachetPiOptions extends ContainedHookOptions {
  /** The conversation these calls belong to (a pi `sessionId`, say). Required: pi payloads carry no stable id. */
  conversationId: string;
  /**
   * Volatile context for the next call (clock, memory recall), appended after the last breakpoint.
   * A function that throws or returns something other than strings is reported (`onError`) and the
   * call goes out without a tail.
   */
  tail?: () => string | readonly string[] | undefined;
  ttl?: Partial<Record<'global' | 'session' | 'history', AnthropicTtl>>;
  /** pi-ai marks the system prompt, last tool and last user message itself: `replace` [default] or `keep` them. */
  existingMarkers?: ExistingMarkers;
  /** Publishes `usage.recorded` (checked usage only), `cache.break` and `warning.raised`. */
  bus?: EventBus;
  onBreak?: (cacheBreak: CacheBreak) => void;
  tokenCounter?: TokenCounter;
  models?: readonly AnthropicModelRow[];
  clock?: () => number;
}

export interface CachetPiHooks {
  /**
   * Pass as pi-ai's `onPayload` option: returns the payload laid out for the cache. Never throws:
   * a payload it cannot lay out is returned as it came, and the problem reported.
   */
  onPayload(payload: unknown, model: PiModelLike): unknown;
  /**
   * Record a finished call's usage (`message.usage` of pi's assistant message). Returns the
   * Cachet `Usage`, or null — reported, nothing published — when the message has no usage or
   * its figures are not whole non-negative counts. Never throws.
   */
  recordUsage(message: { usage: PiUsageLike; model?: string }): Usage | null;
}

/**
 * pi-ai hooks for one conversation: `onPayload` applies Cachet's breakpoint plan to Anthropic
 * Messages payloads (at most four markers, lookback guard, tail after the last marker) and sets
 * `prompt_cache_key` on OpenAI payloads; every payload goes through the break detector;
 * `recordUsage` turns pi's usage into Cachet `Usage` and publishes it. Neither hook throws into
 * pi: problems go to `onError` and `warning.raised`.
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
  const conversationId = options.conversationId;
  const state = createConversationStore({ maxConversations: 1, counter, bus: options.bus }).get(conversationId);
  const reporter = hookReporter('pi', options);
  let lastModel: PiModelLike | null = null;
  let turn = 0;

  const layOut = (payload: unknown, model: PiModelLike): unknown => {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new ValidationError('payload', 'a request body object', `got ${payload === null ? 'null' : typeof payload}`);
    }
    if (typeof model?.api !== 'string') throw new ValidationError('model.api', 'a string');
    if (model.api === 'anthropic-messages') {
      const laidOut = planWireBreakpoints(payload, {
        tail: resolveTail(() => options.tail?.(), reporter, 'tail', conversationId),
        previous: state.previous,
        ttl,
        existingMarkers,
        counter,
        ...(options.models ? { models: options.models } : {}),
      });
      state.previous = laidOut.planned.plan.cacheState;
      return laidOut.body;
    }
    if (model.api.startsWith('openai')) {
      const record = payload as Record<string, unknown>;
      return { ...record, prompt_cache_key: record.prompt_cache_key ?? `cachet-${conversationId}` };
    }
    return payload;
  };

  return {
    onPayload(payload, model) {
      lastModel = typeof model === 'object' && model !== null ? model : null;
      turn++;
      let body: unknown;
      try {
        body = layOut(payload, model);
      } catch (error) {
        reporter.report(error, 'onPayload', conversationId);
        return payload;
      }
      try {
        const found = state.detector.observe(body, { at: clock(), turn, step: 0 });
        if (found) reporter.call(options.onBreak, 'onBreak', found);
      } catch {
        // An unfamiliar payload shape must never stop the call.
      }
      return body;
    },
    recordUsage(message) {
      const source = (message as { usage?: Partial<PiUsageLike> } | null | undefined)?.usage;
      if (typeof source !== 'object' || source === null) {
        reporter.report(new Error('usage not recorded: the message has no usage'), 'recordUsage', conversationId);
        return null;
      }
      const read = {
        uncachedInputTokens: source.input,
        cacheReadTokens: source.cacheRead,
        cacheWrite5mTokens: source.cacheWrite,
        cacheWrite1hTokens: 0,
        outputTokens: source.output,
        reasoningTokens: 0,
        raw: source,
      };
      const modelId = typeof message.model === 'string' && message.model !== '' ? message.model : (lastModel?.id ?? 'unknown');
      return publishUsage({
        reporter,
        where: 'recordUsage',
        bus: options.bus,
        conversationId,
        at: clock(),
        turn,
        step: 0,
        model: modelId,
        pricing: lastModel?.api?.startsWith('openai') ? 'openai-chat' : 'anthropic',
        usage: read,
      });
    },
  };
}
