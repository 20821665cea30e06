import { type AIMessage, HumanMessage } from '@langchain/core/messages';
import type { ClientTool, ServerTool } from '@langchain/core/tools';
import { type AgentMiddleware, createMiddleware } from 'langchain';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { ValidationError } from '../../model/errors.js';
import type { AnthropicTtl } from '../../providers/anthropic/models.js';
import { cacheControlMarker } from '../../providers/anthropic/place-breakpoints.js';
import { tailPricingFor } from '../../runtime/tail-pricing.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { anthropicBodyFromView } from '../shared/anthropic-body-from-view.js';
import { defaultConversationId, turnAndStep } from '../shared/call-identity.js';
import { observeFinishedCall, recordPlannedCall } from '../shared/call-record.js';
import { type HookReporter, hookReporter } from '../shared/contained-hooks.js';
import { type ConversationState, type ConversationStore, createConversationStore } from '../shared/conversation-store.js';
import type { DropInCallInfo, DropInOptions } from '../shared/drop-in-options.js';
import { planWithForks } from '../shared/fork-recognition.js';
import { resolveIntegrationSettings } from '../shared/integration-settings.js';
import { scopeTail } from '../shared/persisted-tail.js';
import { type ExistingMarkers, partPath } from '../shared/plan-prompt-breakpoints.js';
import type { MiddlewareCallParams, PromptPart } from '../shared/prompt-view.js';
import { resolveTail } from '../shared/resolve-tail.js';
import type { TailContext, TailValue } from '../shared/turn-tail.js';
import { type VolatileOption, volatileOptionOf } from '../shared/volatile-auto.js';
import {
  applyLangChainMarkers,
  type LangChainRequestParts,
  langChainPromptView,
  withPersistedHumanTail,
} from './langchain-prompt-view.js';
import { moveLangChainVolatileSystem } from './langchain-volatile.js';
import { usageFromLangChain } from './usage-from-langchain.js';

/** What the middleware decided for one model call. */
export type CachetLangChainCallInfo = DropInCallInfo;

/** The slice of LangChain's `ModelRequest` the middleware reads (kept structural across versions). */
export interface CachetModelRequest extends LangChainRequestParts {
  model: unknown;
  modelSettings?: Record<string, unknown> | undefined;
}

/** Options of the LangChain `cachetMiddleware`. Every field is optional. */
export interface CachetLangChainOptions extends DropInOptions<CachetLangChainCallInfo> {
  /** The conversation a call belongs to; default: a hash of the model, tool names and first user message. */
  conversationId?: string | ((request: CachetModelRequest) => string | undefined);
  /**
   * Volatile context (clock, memory recall), called at every model call with the request and
   * `{ turn, step, conversationId }` (a new human message starts a turn; tool results continue
   * it). Return strings or `{ text, scope }` items, `scope` as in `Session`: `request` texts go
   * after the last breakpoint of this call only (appended to the last human message, or after
   * the tool results in the same user message); `turn` texts are written once into the human
   * message that opened the turn and kept there, read from the cache by later steps and turns;
   * `auto` [default] chooses by cost. Use it instead of a dynamic system prompt.
   */
  tail?: (request: CachetModelRequest, context: TailContext) => TailValue;
  /** As in `DropInOptions`; works with `dynamicSystemPromptMiddleware` placed before this one. */
  volatile?: VolatileOption;
  /**
   * What to do with a model Cachet has no layout for, as in LangChain's own caching middleware:
   * `ignore` [default] passes the call through (usage is still read), `warn` logs once per
   * model name, `raise` throws.
   */
  unsupportedModelBehavior?: 'ignore' | 'warn' | 'raise';
}

/**
 * What `createMiddleware` returns for Cachet's hooks, named so that the declarations import it by
 * name (an inferred type is emitted as inline `import("langchain")`, which a project without
 * langchain could not type-check with `skipLibCheck: false`; see scripts/mark-optional-peer-types.mjs).
 */
export type CachetLangChainMiddleware = AgentMiddleware<
  undefined,
  undefined,
  unknown,
  readonly (ClientTool | ServerTool)[],
  readonly []
>;

/**
 * LangChain v1 agent middleware (`createAgent({ middleware: [cachetMiddleware()] })`) that lays
 * out every model call for the prompt cache: for `ChatAnthropic`, Cachet's breakpoint plan on the
 * tools, system blocks and history from the first request on (at most four, lookback guard);
 * for `ChatOpenAI`, a stable `promptCacheKey`; the volatile `tail` after the last breakpoint;
 * usage from `usage_metadata` / the raw Anthropic usage, events, and cache-break detection
 * that names a dynamic system prompt as the cause.
 *
 * @example
 * const agent = createAgent({ model: new ChatAnthropic({ model: 'claude-sonnet-4-5' }), tools, systemPrompt,
 *   middleware: [cachetMiddleware({ tail: () => `Current time: ${new Date().toISOString()}` })] });
 */
export function cachetMiddleware(options: CachetLangChainOptions = {}): CachetLangChainMiddleware {
  const { existingMarkers, ttl, counter, clock } = resolveIntegrationSettings(options);
  const unsupported = options.unsupportedModelBehavior ?? 'ignore';
  if (!['ignore', 'warn', 'raise'].includes(unsupported)) {
    throw new ValidationError(
      'options.unsupportedModelBehavior',
      '"ignore", "warn" or "raise"',
      `got ${JSON.stringify(unsupported)}`,
    );
  }
  const conversations = createConversationStore({ maxConversations: options.maxConversations, counter, bus: options.bus });
  const warned = new Set<string>();
  const reporter = hookReporter('langchain', options);
  const volatile = volatileOptionOf(options.volatile);
  const settings = { existingMarkers, ttl, counter, clock, reporter, volatile, conversations };

  return createMiddleware({
    name: 'CachetMiddleware',
    wrapModelCall: async (request, handler) => {
      const parts = request as unknown as CachetModelRequest;
      const model = modelOf(parts.model);
      if (model.provider === 'other') {
        if (unsupported === 'raise')
          throw new ValidationError('request.model', 'ChatAnthropic or ChatOpenAI', `got ${model.name}`);
        if (unsupported === 'warn' && !warned.has(model.name)) {
          warned.add(model.name);
          console.warn(`cachetMiddleware: no cache layout for ${model.name}; the call is passed through`);
        }
        return handler(request);
      }
      let prepared: PreparedCall | null = null;
      try {
        prepared = prepareCall(parts, model, options, settings, conversations);
      } catch (error) {
        // Whatever went wrong, the call goes out as the agent built it.
        reporter.report(error, 'wrapModelCall');
      }
      if (!prepared) return handler(request);
      reporter.call(options.onRequest, 'onRequest', prepared.info);
      const reply = await handler(prepared.request as typeof request);
      observeReply(prepared, reply, options, settings);
      return reply;
    },
  });
}

interface CallSettings {
  existingMarkers: ExistingMarkers;
  ttl: Record<'global' | 'session' | 'history', AnthropicTtl>;
  counter: TokenCounter;
  clock: () => number;
  reporter: HookReporter;
  volatile: VolatileOption;
  conversations: ConversationStore;
}

interface PreparedCall {
  request: CachetModelRequest;
  info: CachetLangChainCallInfo;
  state: ConversationState;
  /** The Anthropic request in Cachet's view, for break detection; null for OpenAI. */
  wireView: MiddlewareCallParams | null;
  at: number;
}

/** Cachet's layout of one model call: markers and tail (Anthropic) or cache key and tail (OpenAI). */
function prepareCall(
  given: CachetModelRequest,
  model: { provider: 'anthropic' | 'openai'; modelId: string },
  options: CachetLangChainOptions,
  settings: CallSettings,
  conversations: ConversationStore,
): PreparedCall {
  const { provider, modelId } = model;
  const ownView = langChainPromptView(given);
  const conversationId =
    (typeof options.conversationId === 'function' ? options.conversationId(given) : options.conversationId) ??
    defaultConversationId(modelId, ownView);
  const { turn, step } = turnAndStep(ownView);
  const state = conversations.get(conversationId);
  const moved =
    settings.volatile === 'auto'
      ? moveLangChainVolatileSystem(given, {
          ...settings,
          state,
          bus: options.bus,
          conversationId,
          at: settings.clock(),
          turn,
          step,
        })
      : { request: given, items: [] };
  const parts = moved.request;
  const items = [
    ...moved.items,
    ...resolveTail(() => options.tail?.(given, { turn, step, conversationId }), settings.reporter, 'tail', conversationId),
  ];
  const { keys, plan } = scopeTail({
    messages: parts.messages,
    opensTurn: (message) => HumanMessage.isInstance(message),
    content: (message) => message.content,
    state: state.turnTail,
    step,
    items,
    countTokens: (text) => settings.counter.countText(text),
    pricing: tailPricingFor(provider === 'anthropic' ? 'anthropic' : 'openai-chat', modelId),
  });
  const tail = plan.requestTexts;
  const request = { ...parts, messages: withPersistedHumanTail(parts.messages, keys, plan.persisted) };
  const info: CachetLangChainCallInfo = {
    conversationId,
    provider,
    model: modelId,
    turn,
    step,
    breakpoints: [],
    promptCacheKey: null,
    warnings: [],
    tailScopes: plan.decisions,
  };
  return provider === 'openai'
    ? prepareOpenAICall(request, info, state, tail, settings.clock())
    : prepareAnthropicCall(request, info, state, tail, options, settings);
}

function prepareOpenAICall(
  parts: CachetModelRequest,
  info: CachetLangChainCallInfo,
  state: ConversationState,
  tail: readonly string[],
  at: number,
): PreparedCall {
  const modelSettings = parts.modelSettings ?? {};
  const promptCacheKey =
    typeof modelSettings.promptCacheKey === 'string' ? modelSettings.promptCacheKey : `cachet-${info.conversationId}`;
  info.promptCacheKey = promptCacheKey;
  const applied = applyLangChainMarkers(parts, new Map(), tail, 'openai');
  if (!applied.tailPlaced) info.warnings = [tailNotPlaced()];
  const request = { ...parts, messages: applied.messages, modelSettings: { ...modelSettings, promptCacheKey } };
  return { request, info, state, wireView: null, at };
}

function prepareAnthropicCall(
  parts: CachetModelRequest,
  info: CachetLangChainCallInfo,
  state: ConversationState,
  tail: readonly string[],
  options: CachetLangChainOptions,
  settings: CallSettings,
): PreparedCall {
  const { conversationId, model: modelId } = info;
  const view = langChainPromptView(parts);
  const at = settings.clock();
  const { view: withTail, tailParts } = appendTailToView(view, tail);
  const { planned, fork } = planWithForks(settings.conversations, conversationId, {
    params: withTail,
    modelId,
    tailMessageParts: tailParts,
    previous: state.previous,
    ttl: settings.ttl,
    existingMarkers: settings.existingMarkers,
    counter: settings.counter,
    ...(options.models ? { models: options.models } : {}),
    // applyLangChainMarkers drops a marker on an AI message: a fork's history end is usually one.
    assistantUnmarkable: true,
  });
  const marks = new Map(planned.plan.breakpoints.map((breakpoint) => [breakpoint.path, cacheControlMarker(breakpoint.ttl)]));
  const applied = applyLangChainMarkers(parts, marks, tail, 'anthropic');
  info.breakpoints = planned.plan.breakpoints
    .filter((breakpoint) => !applied.dropped.some((path) => breakpoint.path.startsWith(`${path}.`)))
    .map(({ path, zone, ttl: markerTtl, reason }) => ({ path, zone, ttl: markerTtl, reason }));
  info.warnings = [
    ...planned.plan.warnings,
    ...applied.dropped.map((path) =>
      adapterWarning('marker-not-placed', `no marker on the AI message at ${path}: LangChain rebuilds its tool-use blocks`, path),
    ),
    ...(applied.tailPlaced ? [] : [tailNotPlaced()]),
  ];
  recordPlannedCall({
    state,
    planned,
    fork,
    bus: options.bus,
    at,
    call: info,
    breakpoints: info.breakpoints,
    warnings: info.warnings,
  });
  const request = {
    ...parts,
    messages: applied.messages,
    tools: applied.tools,
    ...(applied.systemMessage ? { systemMessage: applied.systemMessage } : {}),
  };
  return { request, info, state, wireView: planned.params, at };
}

/** Break detection and usage for a finished call; contained: a problem here never reaches the agent. */
function observeReply(prepared: PreparedCall, reply: unknown, options: CachetLangChainOptions, settings: CallSettings): void {
  const { info, wireView } = prepared;
  observeFinishedCall({
    state: prepared.state,
    reporter: settings.reporter,
    bus: options.bus,
    sentAt: prepared.at,
    now: settings.clock(),
    info,
    pricing: info.provider === 'anthropic' ? 'anthropic' : 'openai-chat',
    readBody: () => (wireView ? anthropicBodyFromView(wireView, info.model) : null),
    readUsage: () => usageFromLangChain(reply as AIMessage),
    where: 'wrapModelCall',
    onBreak: options.onBreak,
    onUsage: options.onUsage,
  });
}

function tailNotPlaced(): AdapterWarning {
  return adapterWarning(
    'tail-not-placed',
    'the tail was not sent: the request ends with an AI message, and a user turn after it would change the conversation',
  );
}

type ModelOf =
  | { provider: 'anthropic' | 'openai'; modelId: string; name: string }
  | { provider: 'other'; modelId: string; name: string };

function modelOf(model: unknown): ModelOf {
  const record = model as {
    getName?: () => string;
    model?: unknown;
    modelName?: unknown;
    _defaultConfig?: { modelProvider?: unknown; model?: unknown };
  };
  const name = typeof record?.getName === 'function' ? record.getName() : 'unknown model';
  const modelId = String(record?.model ?? record?.modelName ?? record?._defaultConfig?.model ?? '');
  if (name === 'ChatAnthropic' || record?._defaultConfig?.modelProvider === 'anthropic')
    return { provider: 'anthropic', modelId, name };
  if (name === 'ChatOpenAI' || record?._defaultConfig?.modelProvider === 'openai') return { provider: 'openai', modelId, name };
  return { provider: 'other', modelId, name };
}

/**
 * The tail in the view where `applyLangChainMarkers` puts it: after the blocks of the last human
 * message or of the last tool result (the one user message the tool run becomes); after an AI
 * message there is no user turn to carry it, so it is not placed.
 */
function appendTailToView(
  view: MiddlewareCallParams,
  tail: readonly string[],
): { view: MiddlewareCallParams; tailParts: Set<string> } {
  const tailParts = new Set<string>();
  const prompt = [...view.prompt];
  const last = prompt.at(-1);
  if (tail.length === 0 || !last || (last.role !== 'user' && last.role !== 'tool') || typeof last.content === 'string') {
    return { view, tailParts };
  }
  const parts: PromptPart[] = tail.map((text) => ({ type: 'text', text }));
  prompt[prompt.length - 1] = { ...last, content: [...last.content, ...parts] };
  for (let index = 0; index < parts.length; index++) tailParts.add(partPath(prompt.length - 1, last.content.length + index));
  return { view: { ...view, prompt }, tailParts };
}
