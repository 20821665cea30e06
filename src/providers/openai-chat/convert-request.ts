import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import type { CanonicalRequest } from '../../model/request.js';
import type { ConversionResult } from '../adapter.js';
import { type DeferredToolPlacement, toolsWithDeferred } from '../shared/deferred-tool-placement.js';
import { buildChatMessages, type ChatDialect } from './chat-messages.js';
import { chatSamplingFields, toChatTools } from './chat-params.js';
import { foreignModelWarning } from './foreign-model-ids.js';
import { type OpenAIModelFacts, resolveOpenAIModel } from './models.js';
import { markOpenAIBreakpoints } from './place-breakpoints.js';
import { derivePromptCacheKey } from './prompt-cache-key.js';

/** The wire body: exactly the official SDK's non-streaming request type. */
export type OpenAIChatBody = ChatCompletionCreateParamsNonStreaming;

/** Options shared by the two OpenAI adapters (Chat Completions and Responses). */
export interface OpenAIRequestOptions {
  /**
   * `prompt_cache_key`: by default the session id (or a digest of it when longer than 64
   * characters); a string or function overrides it; `null` leaves the field out.
   */
  promptCacheKey?: string | null | ((request: CanonicalRequest) => string);
  /**
   * `prompt_cache_retention`. `auto` [default]: `24h` wherever the model table says the model
   * accepts it (OpenAI and Azure bill both policies the same, and 24 hours outlives every
   * pause), `in_memory` under `zeroDataRetention`. An explicit value the model refuses is
   * omitted with a warning.
   */
  promptCacheRetention?: 'auto' | 'in_memory' | '24h';
  /**
   * The organisation has zero data retention [false]: `24h` is not ZDR-eligible, so retention
   * is forced to `in_memory` (or left out, with a warning, where the model accepts only `24h`).
   */
  zeroDataRetention?: boolean;
  /** Explicit `prompt_cache_breakpoint`s on models that accept them (`auto`, the default), or never (`off`). */
  breakpoints?: 'auto' | 'off';
  /**
   * `explicit` (default): Cachet's breakpoints only, so the tail is never written to the cache.
   * `implicit`: OpenAI adds its own breakpoint at the end and writes Cachet's latest three.
   */
  breakpointMode?: 'implicit' | 'explicit';
  /** Role of system text and of the trailing tail message; default `developer` for reasoning models. */
  systemRole?: 'system' | 'developer';
  /**
   * Where the tail goes when the request ends with the user's own message: merged into it
   * after the user's text (default; `before-user-text` items before it), or a trailing
   * system/developer message. During tool loops it is always a trailing system/developer message.
   */
  tailInTurn?: 'merge-into-user' | 'trailing-system';
  /** Model rows checked before the built-in table. */
  models?: readonly OpenAIModelFacts[];
  /**
   * Deferred tools on a provider that cannot defer loading: `append` [default] (declared when
   * history loads them; each load re-writes the cached prefix once) or `upfront` (all declared
   * from the first request). `chooseDeferredToolPlacement` decides by cost.
   */
  deferredTools?: DeferredToolPlacement;
}

/** Resolve `prompt_cache_key` from the options. */
export function resolvePromptCacheKey(request: CanonicalRequest, option: OpenAIRequestOptions['promptCacheKey']): string | null {
  if (option === null) return null;
  if (typeof option === 'string') return option;
  if (typeof option === 'function') return option(request);
  return derivePromptCacheKey(request.sessionId);
}

/**
 * Convert a canonical request to a Chat Completions body. Prefix order: system/developer message
 * (one text part per segment, global then session), tools in the request's order with canonical
 * schemas, session and history messages; the turn tail last, as a trailing system/developer
 * message during tool loops and merged into the user's message otherwise.
 *
 * @example
 * const { body, metadata } = convertToOpenAIChat(assemble(session), { promptCacheRetention: '24h' });
 * await new OpenAI().chat.completions.create(body);
 */
export function convertToOpenAIChat(
  request: CanonicalRequest,
  options: OpenAIRequestOptions = {},
): ConversionResult<OpenAIChatBody> {
  const facts = resolveOpenAIModel(request.model, options.models);
  const dialect: ChatDialect = {
    systemRole: options.systemRole ?? (facts.reasoning ? 'developer' : 'system'),
    contentForm: 'parts',
    toolCallContent: 'null',
    tailInToolLoop: 'trailing-system',
    tailInTurn: options.tailInTurn ?? 'merge-into-user',
    reasoning: { send: 'never', field: 'reasoning_content' },
  };
  const built = buildChatMessages(request, dialect);
  const warnings = [...built.warnings];
  const foreign = foreignModelWarning(request.model);
  if (foreign) warnings.push(foreign);
  if (
    request.messages.some((message) =>
      message.content.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking'),
    )
  ) {
    warnings.push(
      adapterWarning(
        'thinking-not-sent',
        'thinking blocks are not sent: Chat Completions accepts no reasoning input (use the Responses adapter to carry reasoning)',
      ),
    );
  }
  const breakpoints =
    facts.explicitBreakpoints && options.breakpoints !== 'off'
      ? markOpenAIBreakpoints(built.anchors, options.breakpointMode ?? 'explicit')
      : [];

  const body: OpenAIChatBody = {
    model: request.model,
    messages: built.messages,
    max_completion_tokens: request.params.maxTokens,
  };
  const tools = toolsWithDeferred(request, options.deferredTools ?? 'append');
  if (tools.length > 0) body.tools = toChatTools(tools);
  Object.assign(body, chatSamplingFields(request.params, tools.length > 0, facts.reasoning, warnings));
  Object.assign(body, cacheFields(request, options, facts, breakpoints.length > 0, warnings));
  return { body, metadata: { breakpoints, padding: null, warnings } };
}

/** `prompt_cache_key`, `prompt_cache_retention` and `prompt_cache_options` for either OpenAI API. */
export function cacheFields(
  request: CanonicalRequest,
  options: OpenAIRequestOptions,
  facts: OpenAIModelFacts,
  placedBreakpoints: boolean,
  warnings: AdapterWarning[],
): Pick<OpenAIChatBody, 'prompt_cache_key' | 'prompt_cache_retention' | 'prompt_cache_options'> {
  const fields: Pick<OpenAIChatBody, 'prompt_cache_key' | 'prompt_cache_retention' | 'prompt_cache_options'> = {};
  const key = resolvePromptCacheKey(request, options.promptCacheKey);
  if (key !== null) fields.prompt_cache_key = key;
  const retention = chooseRetention(options, facts, warnings);
  if (retention) fields.prompt_cache_retention = retention;
  // Explicit mode without a single breakpoint would switch caching off entirely.
  if (placedBreakpoints && (options.breakpointMode ?? 'explicit') === 'explicit')
    fields.prompt_cache_options = { mode: 'explicit' };
  return fields;
}

/** The `prompt_cache_retention` to send, or null to leave the field out. */
export function chooseRetention(
  options: Pick<OpenAIRequestOptions, 'promptCacheRetention' | 'zeroDataRetention'>,
  facts: OpenAIModelFacts,
  warnings: AdapterWarning[],
): 'in_memory' | '24h' | null {
  const wanted = options.promptCacheRetention ?? 'auto';
  const accepted = `${facts.family} accepts ${facts.retention.join(', ')} (${facts.source}, ${facts.checked})`;
  if (options.zeroDataRetention) {
    if (wanted === '24h') {
      warnings.push(
        adapterWarning(
          'retention-replaced',
          'prompt_cache_retention "24h" replaced: 24h retention is not eligible for zero data retention',
        ),
      );
    }
    if (facts.retention.includes('in_memory')) return 'in_memory';
    warnings.push(
      adapterWarning('retention-omitted', `prompt_cache_retention omitted: zero data retention needs in_memory, but ${accepted}`),
    );
    return null;
  }
  if (wanted === 'auto') return facts.retention.includes('24h') ? '24h' : null;
  if (facts.retention.includes(wanted)) return wanted;
  warnings.push(adapterWarning('retention-omitted', `prompt_cache_retention "${wanted}" omitted: ${accepted}`));
  return null;
}
