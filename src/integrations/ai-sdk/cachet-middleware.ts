import type { Usage } from '../../model/usage.js';
import { tailPricingFor } from '../../runtime/tail-pricing.js';
import { defaultConversationId, turnAndStep } from '../shared/call-identity.js';
import { observeFinishedCall, recordPlannedCall } from '../shared/call-record.js';
import { hookReporter } from '../shared/contained-hooks.js';
import { type ConversationState, createConversationStore } from '../shared/conversation-store.js';
import type { DropInCallInfo, DropInOptions } from '../shared/drop-in-options.js';
import { planWithForks } from '../shared/fork-recognition.js';
import { resolveIntegrationSettings } from '../shared/integration-settings.js';
import { scopeTail, withPersistedTail } from '../shared/persisted-tail.js';
import type { MiddlewareCallParams, MiddlewareModel, ProviderOptionsRecord } from '../shared/prompt-view.js';
import { resolveTail } from '../shared/resolve-tail.js';
import type { TailContext, TailValue } from '../shared/turn-tail.js';
import {
  moveAndPublishVolatile,
  viewHistoryTokens,
  viewSystemTexts,
  volatileOptionOf,
  withViewSystemTexts,
} from '../shared/volatile-auto.js';
import { withPromptCacheKey } from './prompt-cache-key.js';
import { appendTail, parseJson, providerOf, stringOption, TAIL_AFTER_PREFILL, withoutCachetOptions } from './prompt-edits.js';
import { type ModelUsage, usageFromModelResult } from './usage-from-model-result.js';

/** What the middleware decided for one model call, passed to `onRequest`. */
export type CachetCallInfo = DropInCallInfo;

/** Options of `cachetMiddleware`. Every field is optional. */
export interface CachetMiddlewareOptions extends DropInOptions<CachetCallInfo> {
  /**
   * Identifies the conversation a call belongs to (break detection, lookback guard, OpenAI
   * `promptCacheKey`). A string, or a function of the call. A per-call
   * `providerOptions.cachet.conversationId` wins. Default: a hash of the model, the tool names
   * and the first user message, which stays the same across the calls of one conversation even
   * when the system prompt changes every call.
   */
  conversationId?: string | ((params: MiddlewareCallParams) => string | undefined);
  /**
   * Volatile context (clock, memory recall, working context), called at every model call with
   * the call and `{ turn, step, conversationId }` (a new user message starts a turn; tool results
   * continue it). Return strings or `{ text, scope }` items; `scope` as in `Session`: `request`
   * texts go after the last breakpoint of this call only (appended to the last user message, or
   * after the tool results — Anthropic merges them into that wire message, OpenAI gets a trailing
   * system message); `turn` texts are written once into the user message that opened the turn
   * and kept there, so later steps and turns read them from the cache; `auto` [default] chooses
   * by cost from the conversation's learned steps per turn. A per-call
   * `providerOptions.cachet.tail` is used as well.
   */
  tail?: (params: MiddlewareCallParams, context: TailContext) => TailValue;
  /** OpenAI `promptCacheRetention` (`in_memory` or `24h`) when the caller did not set one. */
  promptCacheRetention?: 'in_memory' | '24h';
  /** Which cache rules apply; detected from `model.provider` by default. */
  provider?: 'anthropic' | 'openai' | 'other';
}

/** The middleware: satisfies `LanguageModelV3Middleware` (`ai` 6) and `ai` 7's `LanguageModelMiddleware`. */
export interface CachetMiddleware {
  readonly specificationVersion: 'v3';
  transformParams<P>(options: { type: 'generate' | 'stream'; params: P; model: MiddlewareModel }): Promise<P>;
  wrapGenerate<R>(options: { doGenerate: () => PromiseLike<R>; params: unknown; model: MiddlewareModel }): Promise<R>;
  wrapStream<R extends { stream: ReadableStream<unknown> }>(options: {
    doStream: () => PromiseLike<R>;
    params: unknown;
    model: MiddlewareModel;
  }): Promise<R>;
}

interface PendingCall {
  info: CachetCallInfo;
  state: ConversationState;
  at: number;
}

interface GenerateResultShape {
  usage?: ModelUsage;
  providerMetadata?: ProviderOptionsRecord;
  request?: { body?: unknown };
}

/**
 * AI SDK middleware that lays out every call for the provider's prompt cache, with no other
 * change to a `generateText` / `streamText` / agent loop: Anthropic breakpoints from Cachet's
 * plan (at most four, lookback guard, TTL order; the caller's markers replaced or kept), the
 * OpenAI `promptCacheKey`, an opt-in turn tail for volatile context; normalised usage, events
 * and live cache-break detection (streams too). Only `transformParams` changes the call; the
 * wrappers only read what came back.
 *
 * @example
 * const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: cachetMiddleware() });
 * await generateText({ model, system, messages, tools,
 *   providerOptions: { cachet: { tail: `Current time: ${new Date().toISOString()}` } } });
 */
export function cachetMiddleware(options: CachetMiddlewareOptions = {}): CachetMiddleware {
  const { existingMarkers, ttl, counter, clock } = resolveIntegrationSettings(options);
  // Per middleware instance and bounded (least recently used dropped first), never module-level.
  const conversations = createConversationStore({ maxConversations: options.maxConversations, counter, bus: options.bus });
  // Keyed by the params object transformParams returned, which the wrappers receive.
  const pending = new WeakMap<object, PendingCall>();
  const stateFor = (conversationId: string) => conversations.get(conversationId);

  const reporter = hookReporter('ai-sdk', options);
  const volatile = volatileOptionOf(options.volatile);

  /** Break detection and usage for a finished call; contained: a problem here never reaches the caller. */
  const observe = (call: PendingCall, body: unknown, readUsage: () => Usage | null, where: string) => {
    observeFinishedCall({
      state: call.state,
      reporter,
      bus: options.bus,
      sentAt: call.at,
      now: clock(),
      info: call.info,
      pricing: call.info.provider === 'anthropic' ? 'anthropic' : 'openai-chat',
      readBody: () => {
        const parsed = typeof body === 'string' ? parseJson(body) : body;
        return typeof parsed === 'object' && parsed !== null ? parsed : null;
      },
      readUsage,
      where,
      onBreak: options.onBreak,
      onUsage: options.onUsage,
    });
  };

  /** Cachet's layout of one call (tail, markers or cache key), remembered for the wrappers. */
  const layOut = (params: MiddlewareCallParams, model: MiddlewareModel): MiddlewareCallParams => {
    const provider = options.provider ?? providerOf(model.provider);
    const cachetOptions = params.providerOptions?.cachet ?? {};
    const conversationId =
      stringOption(cachetOptions.conversationId, 'providerOptions.cachet.conversationId') ??
      (typeof options.conversationId === 'function' ? options.conversationId(params) : options.conversationId) ??
      defaultConversationId(model.modelId, params);
    const state = stateFor(conversationId);
    const { turn, step } = turnAndStep(params);
    const context: TailContext = { turn, step, conversationId };
    const items = [
      ...resolveTail(() => options.tail?.(params, context), reporter, 'tail', conversationId),
      ...resolveTail(() => cachetOptions.tail, reporter, 'providerOptions.cachet.tail', conversationId),
    ];
    const cachetFree = withoutCachetOptions(params);
    const move =
      volatile === 'auto'
        ? moveAndPublishVolatile(viewSystemTexts(cachetFree), () => viewHistoryTokens(cachetFree, counter), {
            state: state.volatile,
            counter,
            reporter,
            bus: options.bus,
            conversationId,
            at: clock(),
            turn,
            step,
          })
        : null;
    const bare = move ? withViewSystemTexts(cachetFree, move.texts) : cachetFree;
    if (move) items.unshift(...move.items);
    const { keys, plan } = scopeTail({
      messages: bare.prompt,
      opensTurn: (message) => message.role === 'user',
      content: (message) => message.content,
      state: state.turnTail,
      step,
      items,
      countTokens: (text) => counter.countText(text),
      pricing: tailPricingFor(provider === 'anthropic' ? 'anthropic' : 'openai-chat', model.modelId),
    });
    const withPersisted = withPersistedTail(bare, keys, plan.persisted);
    const { params: withTail, tailParts, placed } = appendTail(withPersisted, plan.requestTexts, provider);
    const info: CachetCallInfo = {
      conversationId,
      provider,
      model: model.modelId,
      turn,
      step,
      breakpoints: [],
      promptCacheKey: null,
      warnings: [],
      tailScopes: plan.decisions,
    };
    let output = withTail;
    if (provider === 'anthropic') {
      // A call repeating a known conversation's prefix is planned as a fork (no marker at its end).
      const { planned, fork } = planWithForks(conversations, conversationId, {
        params: withTail,
        modelId: model.modelId,
        tailMessageParts: tailParts,
        previous: state.previous,
        ttl,
        existingMarkers,
        counter,
        ...(options.models ? { models: options.models } : {}),
      });
      output = planned.params;
      info.breakpoints = planned.plan.breakpoints.map(({ path, zone, ttl: markerTtl, reason }) => ({
        path,
        zone,
        ttl: markerTtl,
        reason,
      }));
      info.warnings = [...planned.plan.warnings, ...(placed ? [] : [TAIL_AFTER_PREFILL])];
      recordPlannedCall({
        state,
        planned,
        fork,
        bus: options.bus,
        at: clock(),
        call: info,
        breakpoints: info.breakpoints,
        warnings: info.warnings,
      });
    } else if (provider === 'openai') {
      ({ params: output, promptCacheKey: info.promptCacheKey } = withPromptCacheKey(
        output,
        `cachet-${conversationId}`,
        options.promptCacheRetention,
      ));
    }
    reporter.call(options.onRequest, 'onRequest', info);
    pending.set(output, { info, state, at: clock() });
    return output;
  };

  return {
    specificationVersion: 'v3',

    async transformParams<P>({ params: input, model }: { type: 'generate' | 'stream'; params: P; model: MiddlewareModel }) {
      try {
        return layOut(input as unknown as MiddlewareCallParams, model) as unknown as P;
      } catch (error) {
        // Whatever went wrong, the call goes out as the caller built it.
        reporter.report(error, 'transformParams');
        return input;
      }
    },

    async wrapGenerate<R>({ doGenerate, params }: { doGenerate: () => PromiseLike<R>; params: unknown; model: MiddlewareModel }) {
      const result = await doGenerate();
      const call = typeof params === 'object' && params !== null ? pending.get(params) : undefined;
      if (call) {
        const shaped = result as GenerateResultShape;
        const readUsage = () =>
          shaped.usage ? usageFromModelResult(shaped.usage, shaped.providerMetadata, call.info.provider) : null;
        observe(call, shaped.request?.body, readUsage, 'wrapGenerate');
      }
      return result;
    },

    async wrapStream<R extends { stream: ReadableStream<unknown> }>({
      doStream,
      params,
    }: {
      doStream: () => PromiseLike<R>;
      params: unknown;
      model: MiddlewareModel;
    }) {
      const result = await doStream();
      const call = typeof params === 'object' && params !== null ? pending.get(params) : undefined;
      if (!call) return result;
      const body = (result as { request?: { body?: unknown } }).request?.body;
      // Parts pass through untouched; the finish part's usage is read on the way.
      const watch = new TransformStream<unknown, unknown>({
        transform(part, controller) {
          controller.enqueue(part);
          const shaped = part as { type?: string; usage?: ModelUsage; providerMetadata?: ProviderOptionsRecord } | null;
          if (shaped?.type === 'finish' && shaped.usage) {
            const { usage, providerMetadata } = shaped;
            observe(call, body, () => usageFromModelResult(usage, providerMetadata, call.info.provider), 'wrapStream');
          }
        },
      });
      return { ...result, stream: result.stream.pipeThrough(watch) };
    },
  };
}
