import type {
  MessageCreateParamsNonStreaming,
  TextBlockParam,
  Tool,
  ToolSearchToolBm25_20251119,
  ToolSearchToolRegex20251119,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { ValidationError } from '../../model/errors.js';
import type { CanonicalRequest, GenerationParams, Zone } from '../../model/request.js';
import { requestReader } from '../../model/request-view.js';
import { assertNever } from '../../model/validate.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { ConversionMetadata, ConversionResult } from '../adapter.js';
import { charsPerTokenCounter } from '../shared/chars-token-counter.js';
import { convertTool, convertToolChoice, textBlock } from './convert-blocks.js';
import { convertMessages } from './convert-messages.js';
import { resolveAnthropicModel } from './models.js';
import { type AnthropicOptions, DEFAULT_SESSION_BREAKPOINT_MIN_TOKENS } from './options.js';
import { type PaddingBlock, pinPadding, planRequestPadding } from './padding.js';
import {
  type AnthropicCacheState,
  cacheControlMarker,
  type PlannedBreakpoint,
  planBreakpoints,
  type ZoneTtls,
} from './place-breakpoints.js';
import { RecordLookup, SlotList } from './slot-list.js';
import { validateConvertedBreakpoints } from './validate-breakpoints.js';

export interface AnthropicConversionMetadata extends ConversionMetadata {
  breakpoints: PlannedBreakpoint[];
  /** Pass back as `options.previous` on the session's next request (lookback guard). */
  cacheState: AnthropicCacheState;
  /** The effective minimum cacheable prefix the plan used. */
  floorTokens: number;
  /** The system blocks padding added (skill bodies first), for `skill.loaded` events. */
  paddingBlocks: PaddingBlock[];
}

export interface AnthropicConversionResult extends ConversionResult<MessageCreateParamsNonStreaming> {
  metadata: AnthropicConversionMetadata;
}

/**
 * Convert a canonical request into a Messages API body. Pure: the same request and options give
 * byte-identical JSON, and nothing is sent anywhere.
 *
 * Layout: `tools` (global, then discovered), `system` (global segments, padding, session
 * segments), `messages` (session static, then history), and the turn tail as text blocks in
 * the final user message after its tool_result blocks (`before-user-text` items just before the
 * user's own text). Breakpoints follow `planBreakpoints`; padding follows `planPadding`.
 *
 * @example
 * const { body, metadata } = convertToAnthropic(assemble(session), { previous: lastState });
 * const reply = await client.messages.create(body);
 * lastState = metadata.cacheState;
 */
export function convertToAnthropic(request: CanonicalRequest, options: AnthropicOptions = {}): AnthropicConversionResult {
  const counter = options.tokenCounter ?? DEFAULT_COUNTER;
  const model = resolveAnthropicModel(request.model, options.models);
  const { mode, tailPlacement, ttl } = conversionChoices(options);
  const warnings: AdapterWarning[] = [];
  const records = new RecordLookup(request);
  const list = new SlotList(counter);

  const allTools = toolsOnTheWire(request, options, { list, records, counter });

  const padding = planRequestPadding(request, { ...options, tokenCounter: counter });
  const system: TextBlockParam[] = [];
  const addPadding = () => {
    padding.blocks.forEach((block, index) => {
      const wire = textBlock(block.text);
      system.push(wire);
      list.add(wire, {
        path: `padding[${index}]`,
        zone: 'global',
        messageIndex: null,
        prefixHash: null,
        cacheable: true,
        tokens: block.tokens,
      });
    });
  };
  let paddingPlaced = false;
  request.system.forEach((segment, index) => {
    if (segment.zone !== 'global' && !paddingPlaced) {
      addPadding();
      paddingPlaced = true;
    }
    const wire = textBlock(segment.text);
    const path = `system[${index}]`;
    system.push(wire);
    list.add(wire, {
      path,
      zone: segment.zone,
      messageIndex: null,
      prefixHash: records.get(path)?.prefixHash ?? null,
      cacheable: segment.text.length > 0,
      tokens: list.count(segment),
    });
  });
  if (!paddingPlaced) addPadding();

  const tailItems = request.tail.items;
  if (tailPlacement === 'system' && tailItems.length > 0) {
    const wire = textBlock(tailItems.map((item) => item.text).join('\n\n'));
    system.push(wire);
    list.add(wire, {
      path: 'tail[0]',
      zone: 'tail',
      messageIndex: null,
      prefixHash: null,
      cacheable: true,
      tokens: tailItems.reduce((sum, item) => sum + list.count(item), 0),
    });
  }

  const messages = convertMessages(
    request,
    tailPlacement === 'final-user-message' ? tailItems : [],
    list,
    records,
    warnings,
    counter,
  );
  if (messages.length === 0) throw new ValidationError('messages', 'at least one message or turn-tail item');

  const lastAssistant = lastAssistantIndex(request);
  const plan = planBreakpoints({
    slots: list.slots,
    tokensThrough: (position) => list.tokensThrough(position),
    firstTailPosition: list.firstTailPosition,
    mode,
    ttl,
    floorTokens: model.effectiveFloorTokens,
    sessionMinTokens: options.sessionBreakpointMinTokens ?? DEFAULT_SESSION_BREAKPOINT_MIN_TOKENS,
    previous: options.previous,
    lastAssistantMessageIndex: lastAssistant >= 0 ? lastAssistant : null,
    markers: options.markers ?? [],
    ...(options.finalRequest ? { finalRequest: true } : {}),
  });
  for (const breakpoint of plan.breakpoints) {
    if (breakpoint.reason === 'automatic') continue;
    list.mark(breakpoint.position, cacheControlMarker(breakpoint.ttl));
  }
  warnings.push(...plan.warnings);

  const toolChoice = convertToolChoice(request.params);
  const body: MessageCreateParamsNonStreaming = {
    model: request.model,
    max_tokens: request.params.maxTokens,
    ...(system.length > 0 ? { system } : {}),
    ...(allTools.length > 0 ? { tools: allTools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    messages,
  };
  applyParams(body, request.params, warnings);
  if (plan.automatic) body.cache_control = cacheControlMarker(plan.automatic.ttl);
  if (options.diagnostics) body.diagnostics = { previous_message_id: options.diagnostics.previousMessageId };

  warnings.push(...validateConvertedBreakpoints(body, list.validationIndexes()));
  return {
    body,
    metadata: {
      breakpoints: plan.breakpoints,
      padding: padding.decision,
      warnings,
      cacheState: { ...plan.cacheState, padding: pinPadding(padding, request.model) },
      floorTokens: model.effectiveFloorTokens,
      paddingBlocks: padding.blocks,
    },
  };
}

/** The conversion's choices from its options, each checked: breakpoint mode, tail placement, TTL per zone. */
function conversionChoices(options: AnthropicOptions): {
  mode: NonNullable<AnthropicOptions['breakpoints']>;
  tailPlacement: NonNullable<AnthropicOptions['tailPlacement']>;
  ttl: ZoneTtls;
} {
  const mode = options.breakpoints ?? 'plan';
  const tailPlacement = options.tailPlacement ?? 'final-user-message';
  if (!['plan', 'automatic', 'none'].includes(mode)) {
    throw new ValidationError('options.breakpoints', '"plan", "automatic" or "none"', `got ${JSON.stringify(mode)}`);
  }
  if (!['final-user-message', 'system'].includes(tailPlacement)) {
    throw new ValidationError(
      'options.tailPlacement',
      '"final-user-message" or "system"',
      `got ${JSON.stringify(tailPlacement)}`,
    );
  }
  const ttl: ZoneTtls = {
    global: options.ttl?.global ?? '5m',
    session: options.ttl?.session ?? '5m',
    history: options.ttl?.history ?? '5m',
  };
  return { mode, tailPlacement, ttl };
}

/** The request's tools as sent, each a slot of the breakpoint plan: declared tools, the tool-search tool, deferred tools last. */
function toolsOnTheWire(
  request: CanonicalRequest,
  options: AnthropicOptions,
  { list, records, counter }: { list: SlotList; records: RecordLookup; counter: TokenCounter },
): ToolUnion[] {
  const tools: Tool[] = request.tools.map((tool, index) => {
    const wire = convertTool(tool);
    const path = `tools[${index}]`;
    const record = records.get(path);
    const zone: Zone = record?.zone ?? (index < request.layout.globalToolCount ? 'global' : 'session');
    list.add(wire, {
      path,
      zone,
      messageIndex: null,
      prefixHash: record?.prefixHash ?? null,
      cacheable: true,
      tokens: list.count(tool),
    });
    return wire;
  });

  const searchTool = toolSearchTool(request, options.toolSearch ?? 'regex');
  if (searchTool) {
    list.add(searchTool, {
      path: 'tools[search]',
      zone: 'global',
      messageIndex: null,
      prefixHash: null,
      cacheable: true,
      tokens: counter.countText(JSON.stringify(searchTool)),
    });
  }
  const deferredWire: ToolUnion[] = (request.deferredTools?.tools ?? []).map((tool) => ({
    ...convertTool(tool),
    defer_loading: true,
  }));
  return [...tools, ...(searchTool ? [searchTool] : []), ...deferredWire];
}

function applyParams(body: MessageCreateParamsNonStreaming, params: GenerationParams, warnings: AdapterWarning[]): void {
  const thinking = params.thinking;
  if (thinking) {
    switch (thinking.type) {
      case 'disabled':
        body.thinking = { type: 'disabled' };
        break;
      case 'enabled':
        body.thinking = { type: 'enabled', budget_tokens: thinking.budgetTokens };
        break;
      case 'adaptive':
        body.thinking = { type: 'adaptive' };
        break;
      default:
        assertNever(thinking);
    }
  }
  // The API has no "minimal" effort; "low" is its nearest level.
  if (params.effort) body.output_config = { effort: params.effort === 'minimal' ? 'low' : params.effort };
  // The current Messages API request type (SDK 1.12) has no sampling parameters.
  if (params.temperature !== undefined)
    warnings.push(adapterWarning('sampling-dropped', 'params.temperature dropped: the Messages API no longer accepts it'));
  if (params.topP !== undefined)
    warnings.push(adapterWarning('sampling-dropped', 'params.topP dropped: the Messages API no longer accepts it'));
  if (params.stopSequences && params.stopSequences.length > 0) body.stop_sequences = [...params.stopSequences];
}

/** Index of the request's last assistant message (-1 without one), read from the end without copying the messages. */
function lastAssistantIndex(request: CanonicalRequest): number {
  const reader = requestReader(request);
  for (let index = reader.messageCount - 1; index >= 0; index--) if (reader.messageAt(index)?.role === 'assistant') return index;
  return -1;
}

/** The default counter, one for every conversion: it memoises the counts of persisted blocks. */
const DEFAULT_COUNTER = charsPerTokenCounter();

/** The tool-search tool that lets the model load deferred tools; none without deferred tools. */
function toolSearchTool(
  request: CanonicalRequest,
  choice: NonNullable<AnthropicOptions['toolSearch']>,
): ToolSearchToolRegex20251119 | ToolSearchToolBm25_20251119 | null {
  if (!request.deferredTools || request.deferredTools.tools.length === 0) return null;
  switch (choice) {
    case 'regex':
      return { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' };
    case 'bm25':
      return { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' };
    case 'none':
      return null;
    default:
      return assertNever(choice);
  }
}

/** @deprecated renamed `convertToAnthropic` (every converter is `convertTo<Provider>`); this alias goes in the next release. */
export const convertRequest = convertToAnthropic;
