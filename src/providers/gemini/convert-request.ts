import type {
  Content,
  FunctionCallingConfigMode,
  GenerateContentConfig,
  GenerateContentParameters,
  Part,
  Tool,
  ToolConfig,
} from '@google/genai';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import type { Message } from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import { sha256 } from '../../model/hash.js';
import type { CanonicalRequest, GenerationParams } from '../../model/request.js';
import { assertNever } from '../../model/validate.js';
import type { ConversionMetadata, ConversionResult } from '../adapter.js';
import { type DeferredToolPlacement, toolsWithDeferred } from '../shared/deferred-tool-placement.js';
import { tailNeedsUserMessage } from '../shared/tail-user-message.js';
import { convertBlockToGemini, convertToolToGemini, type PartContext } from './convert-blocks.js';
import { geminiThinkingBudget } from './thinking-budgets.js';

/** An explicit cache the request reads: its resource name and what it holds. */
export interface GeminiExplicitCacheRef {
  /** `cachedContents/…` as returned by `caches.create`. */
  name: string;
  /** `staticHash` of the request the cache was created from; a different hash means the cache is stale. */
  staticHash: string;
  /** Leading messages of the request the cache holds (the session static pair, when there is one). */
  messageCount: number;
}

export interface GeminiOptions {
  /** Read this explicit cache instead of sending the static zones (see `createGeminiCacheSession`). */
  explicitCache?: GeminiExplicitCacheRef | null;
  /**
   * Where the session's deferred tools go (Gemini cannot defer loading): `append` [default] adds
   * each to the function declarations when history loads it, `upfront` declares them all.
   */
  deferredTools?: DeferredToolPlacement;
}

export interface GeminiConversionMetadata extends ConversionMetadata {
  /** SHA-256 of what an explicit cache would hold (system instruction, tools, session static messages). */
  staticHash: string;
  /** The explicit cache the body reads, or null for implicit caching only. */
  explicitCache: GeminiExplicitCacheRef | null;
}

export interface GeminiConversionResult extends ConversionResult<GenerateContentParameters> {
  metadata: GeminiConversionMetadata;
}

/** What an explicit cache holds for a request: everything static, in prefix order. */
export interface GeminiStaticPrefix {
  systemInstruction: Content | undefined;
  tools: Tool[] | undefined;
  toolConfig: ToolConfig | undefined;
  /** The session static messages (a `[CONTEXT]` pair), converted. */
  contents: Content[];
}

/**
 * Convert a canonical request into `GenerateContentParameters` for `ai.models.generateContent`.
 * Pure: the same request and options give the same body.
 *
 * Layout: `config.systemInstruction` (global, then session segments) and `config.tools` (global,
 * then discovered) form the stable prefix implicit caching reuses; `contents` are the session
 * static messages, the history, and the turn tail as text parts at the end of the final user
 * message. With `options.explicitCache` the body names the cache in `config.cachedContent` and
 * leaves out what the cache holds, since a request that uses a cache may not send its own system
 * instruction, tools or tool config.
 *
 * @example
 * const { body } = convertToGemini(assemble(session));
 * const response = await ai.models.generateContent(body);
 */
export function convertToGemini(canonical: CanonicalRequest, options: GeminiOptions = {}): GeminiConversionResult {
  const request = { ...canonical, tools: toolsWithDeferred(canonical, options.deferredTools ?? 'append') };
  const warnings: AdapterWarning[] = [];
  const prefix = geminiStaticPrefix(request);
  const staticHash = hashStatic(prefix);
  const contents = convertContents(request, warnings);
  if (contents.length === 0) throw new ValidationError('messages', 'at least one message or turn-tail item');
  const config: GenerateContentConfig = generationConfig(request.model, request.params, warnings);
  let explicit = options.explicitCache ?? null;
  if (explicit && explicit.staticHash !== staticHash) {
    warnings.push(
      adapterWarning(
        'explicit-cache-stale',
        `explicit cache ${explicit.name} holds other static content (tools or system changed): not used`,
      ),
    );
    explicit = null;
  }
  let sent = contents;
  if (explicit) {
    config.cachedContent = explicit.name;
    sent = contents.slice(explicit.messageCount);
  } else {
    if (prefix.systemInstruction) config.systemInstruction = prefix.systemInstruction;
    if (prefix.tools) config.tools = prefix.tools;
    if (prefix.toolConfig) config.toolConfig = prefix.toolConfig;
  }
  const body: GenerateContentParameters = { model: request.model, contents: sent, config };
  return { body, metadata: { breakpoints: [], padding: null, warnings, staticHash, explicitCache: explicit } };
}

/**
 * The static part of a request, as an explicit cache would hold it: the system instruction,
 * the tools and tool config, and the session static messages.
 *
 * @example
 * const prefix = geminiStaticPrefix(assemble(session));
 * await ai.caches.create({ model, config: { ...prefix, ttl: '600s' } });
 */
export function geminiStaticPrefix(request: CanonicalRequest): GeminiStaticPrefix {
  const texts = request.system.filter((segment) => segment.text.length > 0).map((segment) => ({ text: segment.text }));
  const declarations = request.tools.map(convertToolToGemini);
  const sessionMessages: CanonicalRequest = {
    ...request,
    messages: request.messages.slice(0, request.layout.sessionMessageCount),
    tail: { items: [], inToolLoop: false },
  };
  return {
    systemInstruction: texts.length > 0 ? { role: 'user', parts: texts } : undefined,
    tools: declarations.length > 0 ? [{ functionDeclarations: declarations }] : undefined,
    toolConfig: declarations.length > 0 ? toolConfig(request.params) : undefined,
    contents: convertContents(sessionMessages, []),
  };
}

function hashStatic(prefix: GeminiStaticPrefix): string {
  return sha256(
    JSON.stringify([prefix.systemInstruction ?? null, prefix.tools ?? null, prefix.toolConfig ?? null, prefix.contents]),
  );
}

/**
 * Every message of the request as Gemini contents, the turn tail as text parts at the end.
 * Gemini refuses an empty text part ("Unable to submit request because it has an empty text
 * parameter"), so a model turn that holds only thinking sends that thinking as thought parts
 * (`thought: true`, each with its signature, as Gemini returns them); one with nothing to send
 * at all (redacted or empty thinking) is left out, and the user turns around it become one.
 */
function convertContents(request: CanonicalRequest, warnings: AdapterWarning[]): Content[] {
  const context: PartContext = { toolNames: new Map(), signature: undefined };
  const contents: Content[] = [];
  const last = request.messages.length - 1;
  let skipped = false;
  request.messages.forEach((message, messageIndex) => {
    const path = `messages[${messageIndex}]`;
    const parts = messageParts(message, path, context, warnings);
    if (messageIndex === last && message.role === 'user') for (const item of request.tail.items) parts.push({ text: item.text });
    const role = message.role === 'assistant' ? 'model' : 'user';
    if (parts.length === 0) {
      warnings.push(
        adapterWarning('thinking-not-sent', `${path}: nothing Gemini accepts (redacted or empty thinking); left out`, path),
      );
      skipped = true;
      return;
    }
    const previous = contents.at(-1);
    if (skipped && previous?.role === role) previous.parts = [...(previous.parts ?? []), ...parts];
    else contents.push({ role, parts });
    skipped = false;
  });
  if (tailNeedsUserMessage(request.messages, request.tail.items.length, warnings)) {
    contents.push({ role: 'user', parts: request.tail.items.map((item) => ({ text: item.text })) });
  }
  return contents;
}

/**
 * One message's parts. A thought signature rides on the part after its thought, never into the
 * next message: one still pending at the end goes on the message's last part (where Gemini puts
 * a text reply's signature). A message of thinking alone sends its thoughts as thought parts.
 */
function messageParts(message: Message, path: string, context: PartContext, warnings: AdapterWarning[]): Part[] {
  context.signature = undefined;
  const parts: Part[] = [];
  message.content.forEach((block, blockIndex) => {
    const part = convertBlockToGemini(block, `${path}.content[${blockIndex}]`, context);
    if (part) parts.push(part);
  });
  const pending = context.signature;
  context.signature = undefined;
  if (parts.length === 0) {
    for (const block of message.content) {
      if (block.type !== 'thinking' || block.thinking.length === 0) continue;
      parts.push({
        text: block.thinking,
        thought: true,
        ...(block.signature === undefined ? {} : { thoughtSignature: block.signature }),
      });
    }
    return parts;
  }
  const lastPart = parts.at(-1);
  if (pending !== undefined && lastPart) {
    if (lastPart.thoughtSignature === undefined) parts[parts.length - 1] = { ...lastPart, thoughtSignature: pending };
    else
      warnings.push(adapterWarning('thinking-not-sent', `${path}: a second thought signature after the last part dropped`, path));
  }
  return parts;
}

function toolConfig(params: GenerationParams): ToolConfig | undefined {
  const choice = params.toolChoice;
  if (!choice) return undefined;
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' as FunctionCallingConfigMode } };
    case 'any':
      return { functionCallingConfig: { mode: 'ANY' as FunctionCallingConfigMode } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' as FunctionCallingConfigMode } };
    case 'tool':
      return { functionCallingConfig: { mode: 'ANY' as FunctionCallingConfigMode, allowedFunctionNames: [choice.name] } };
    default:
      return assertNever(choice);
  }
}

function generationConfig(model: string, params: GenerationParams, warnings: AdapterWarning[]): GenerateContentConfig {
  const config: GenerateContentConfig = { maxOutputTokens: params.maxTokens };
  if (params.temperature !== undefined) config.temperature = params.temperature;
  if (params.topP !== undefined) config.topP = params.topP;
  if (params.stopSequences && params.stopSequences.length > 0) config.stopSequences = [...params.stopSequences];
  if (params.parallelToolCalls === false)
    warnings.push(adapterWarning('parallel-tool-calls-dropped', 'params.parallelToolCalls dropped: Gemini has no switch for it'));
  const thinking = params.thinking;
  if (thinking) {
    switch (thinking.type) {
      case 'disabled':
        config.thinkingConfig = { thinkingBudget: geminiThinkingBudget(model, 0, warnings) };
        break;
      case 'enabled':
        config.thinkingConfig = {
          thinkingBudget: geminiThinkingBudget(model, thinking.budgetTokens, warnings),
          includeThoughts: true,
        };
        break;
      case 'adaptive':
        config.thinkingConfig = { thinkingBudget: -1, includeThoughts: true };
        break;
      default:
        assertNever(thinking);
    }
  }
  if (params.effort)
    warnings.push(adapterWarning('effort-dropped', 'params.effort dropped: not mapped for Gemini (use params.thinking)'));
  return config;
}
