import type { CacheBreak } from '../../cache/break/break-detector.js';
import { wireHistoryTokens } from '../../cache/break/volatile-moved-payload.js';
import type { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import type { AnthropicModelRow, AnthropicTtl } from '../../providers/anthropic/models.js';
import { tailPricingFor } from '../../runtime/tail-pricing.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { type ContainedHookOptions, hookReporter } from '../shared/contained-hooks.js';
import { createConversationStore } from '../shared/conversation-store.js';
import { createKnownConversations, type ForkMatch, type KnownConversations } from '../shared/fork-recognition.js';
import { resolveIntegrationSettings } from '../shared/integration-settings.js';
import { scopeTail } from '../shared/persisted-tail.js';
import type { ExistingMarkers } from '../shared/plan-prompt-breakpoints.js';
import { planWireBreakpoints } from '../shared/plan-wire-breakpoints.js';
import { publishUsage } from '../shared/publish-usage.js';
import { resolveTail } from '../shared/resolve-tail.js';
import type { TailContext, TailValue } from '../shared/turn-tail.js';
import {
  moveAndPublishVolatile,
  type VolatileCallContext,
  type VolatileOption,
  volatileOptionOf,
} from '../shared/volatile-auto.js';
import { isPiOpenAIApi, layOutOpenAIPayload } from './openai-layout.js';
import { wireSystemTexts, withWireSystemTexts } from './wire-system.js';
import { opensWireTurn, type WireMessage, wireTurnAndStep, withPersistedWireTail } from './wire-turns.js';

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
   * Volatile context (clock, memory recall), called at every payload with `{ turn, step,
   * conversationId }` read from the payload (a user message that is not only tool results starts
   * a turn). Return strings or `{ text, scope }` items, `scope` as in `Session`: `request` texts
   * are appended after the last breakpoint of this call only; `turn` texts are written once into
   * the user message that opened the turn and kept there; `auto` [default] chooses by cost.
   * A function that throws or returns something else is reported (`onError`) and the call goes
   * out without a tail.
   */
  tail?: (context: TailContext) => TailValue;
  /**
   * `auto`: move the per-turn paragraphs of the system prompt (present date/time and recalled
   * memories on sight, any other paragraph once it differs from the conversation's first call)
   * into a turn-scoped tail, so the rest stays byte-stable; the model reads that text after the
   * user message that opened the turn. Publishes `volatile.moved`. `off` [default].
   */
  volatile?: VolatileOption;
  ttl?: Partial<Record<'global' | 'session' | 'history', AnthropicTtl>>;
  /** pi-ai marks the system prompt, last tool and last user message itself: `replace` [default] or `keep` them. */
  existingMarkers?: ExistingMarkers;
  /**
   * Conversations whose prefixes a call is recognised as a fork of (planned with no marker at its
   * end). Pass one `createKnownConversations()` to the hooks of a parent and of its subagents, so a
   * subagent's first call that repeats the parent's prefix is planned as a fork. Default: this
   * conversation only (side calls that branch off its last request: titles, recaps, summaries).
   */
  knownConversations?: KnownConversations;
  /** Called with each recognised fork (the conversation it reads and the rule that matched). */
  onFork?: (fork: ForkMatch) => void;
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
 * Messages payloads (at most four markers, lookback guard, tail after the last marker) and lays
 * out OpenAI Chat Completions and Responses payloads (`prompt_cache_key`, the tail last, volatile
 * system paragraphs moved); every payload goes through the break detector;
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
  const volatile = volatileOptionOf(options.volatile);
  const known = options.knownConversations ?? createKnownConversations();
  let lastModel: PiModelLike | null = null;
  let turn = 0;
  let step = 0;

  /** This call's context for moving volatile text and laying out a payload (the turn and step last read). */
  const callContext = (): Omit<VolatileCallContext, 'state'> => ({
    counter,
    reporter,
    bus: options.bus,
    conversationId,
    at: clock(),
    turn,
    step,
  });
  const layOut = (payload: unknown, model: PiModelLike): unknown => {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new ValidationError('payload', 'a request body object', `got ${payload === null ? 'null' : typeof payload}`);
    }
    if (typeof model?.api !== 'string') throw new ValidationError('model.api', 'a string');
    const messages = (payload as { messages?: unknown }).messages;
    if (Array.isArray(messages)) ({ turn, step } = wireTurnAndStep(messages));
    if (model.api === 'anthropic-messages') {
      if (!Array.isArray(messages)) throw new ValidationError('payload.messages', 'a list of messages');
      const items = resolveTail(() => options.tail?.({ turn, step, conversationId }), reporter, 'tail', conversationId);
      const record = payload as Record<string, unknown>;
      const move =
        volatile === 'auto'
          ? moveAndPublishVolatile(wireSystemTexts(record.system), () => wireHistoryTokens(messages, counter), {
              ...callContext(),
              state: state.volatile,
            })
          : null;
      if (move) items.unshift(...move.items);
      const { keys, plan } = scopeTail({
        messages: messages as WireMessage[],
        opensTurn: opensWireTurn,
        content: (message) => message.content,
        state: state.turnTail,
        step,
        items,
        countTokens: (text) => counter.countText(text),
        pricing: tailPricingFor('anthropic', String((payload as { model?: unknown }).model ?? model.id)),
      });
      const withPersisted = {
        ...(move ? withWireSystemTexts(record, move.texts) : record),
        messages: withPersistedWireTail(messages as WireMessage[], keys, plan.persisted),
      };
      const laidOut = planWireBreakpoints(withPersisted, {
        tail: plan.requestTexts,
        previous: state.previous,
        ttl,
        existingMarkers,
        counter,
        ...(options.models ? { models: options.models } : {}),
        forks: { known, conversationId },
      });
      // A branch (a side call off this conversation's last request) is not the conversation's state.
      if (laidOut.fork?.rule !== 'branch') state.previous = laidOut.planned.plan.cacheState;
      if (laidOut.fork) reporter.call(options.onFork, 'onFork', laidOut.fork);
      const lastRole = (messages.at(-1) as WireMessage | undefined)?.role;
      if (plan.requestTexts.length > 0 && lastRole === 'assistant') {
        reporter.report(
          new ValidationError('tail', 'a payload that does not end with an assistant prefill', 'the request tail was not sent'),
          'tail',
          conversationId,
        );
      }
      return laidOut.body;
    }
    if (isPiOpenAIApi(model.api)) {
      const record = payload as Record<string, unknown>;
      const input = record.input;
      if (Array.isArray(input)) ({ turn, step } = wireTurnAndStep(input));
      return layOutOpenAIPayload(record, {
        api: model.api,
        provider: String(model.provider),
        model: String(record.model ?? model.id),
        items: resolveTail(() => options.tail?.({ turn, step, conversationId }), reporter, 'tail', conversationId),
        volatile,
        ...callContext(),
        state,
      });
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
      let body: unknown;
      try {
        body = layOut(payload, model);
      } catch (error) {
        reporter.report(error, 'onPayload', conversationId);
        return payload;
      }
      try {
        const found = state.detector.observe(body, { at: clock(), turn, step });
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
        step,
        model: modelId,
        pricing: lastModel?.api?.startsWith('openai') ? 'openai-chat' : 'anthropic',
        usage: read,
      });
    },
  };
}
