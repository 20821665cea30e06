import { chainHash, EMPTY_PREFIX_HASH, sha256 } from '../../model/hash.js';
import type { Zone } from '../../model/request.js';
import {
  ANTHROPIC_MAX_BREAKPOINTS,
  type AnthropicModelRow,
  type AnthropicTtl,
  resolveAnthropicModel,
} from '../../providers/anthropic/models.js';
import { DEFAULT_SESSION_BREAKPOINT_MIN_TOKENS } from '../../providers/anthropic/options.js';
import {
  type AnthropicCacheState,
  type BreakpointPlan,
  type BreakpointSlot,
  type CallerMarker,
  cacheControlMarker,
  planBreakpoints,
} from '../../providers/anthropic/place-breakpoints.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import {
  anthropicMarkerOf,
  type MiddlewareCallParams,
  type PromptMessage,
  type PromptPart,
  type ProviderOptionsRecord,
  withAnthropicMarker,
  withoutAnthropicMarker,
} from './prompt-view.js';

/** What to do with `cacheControl` markers the caller already put on the call. */
export type ExistingMarkers = 'replace' | 'keep';

export interface PromptPlanInput {
  params: MiddlewareCallParams;
  modelId: string;
  /** Prompt parts at these message indices were appended by the middleware as the turn tail. */
  tailMessageParts: ReadonlySet<string>;
  previous: AnthropicCacheState | null;
  ttl: { global: AnthropicTtl; session: AnthropicTtl; history: AnthropicTtl };
  existingMarkers: ExistingMarkers;
  counter: TokenCounter;
  models?: readonly AnthropicModelRow[];
  /**
   * The integration cannot put a marker on an assistant message's parts (LangChain rebuilds an AI
   * message's blocks): the plan then never marks one, and a breakpoint that would land there goes
   * to the last part it can mark before it instead of being dropped [false].
   */
  assistantUnmarkable?: boolean;
}

export interface PromptBlockHash {
  path: string;
  zone: Zone;
  hash: string;
}

export interface PromptPlan {
  params: MiddlewareCallParams;
  plan: BreakpointPlan;
  /** Prefix hash after each block, in wire order (tools, system, messages). */
  blocks: PromptBlockHash[];
  zoneTokens: Record<Zone, number>;
  floorTokens: number;
}

/** Estimated tokens of a file part: the Messages API bills images by size, which a prompt part does not give. */
const FILE_PART_TOKENS = 1_500;

/**
 * Cachet's Anthropic breakpoint plan (`planBreakpoints`: history end, lookback guard, end of the
 * tools, end of the system text; at most four; 1h before 5m) applied to an AI SDK prompt. Tools
 * are the global static zone, system messages the session static zone, every other part
 * history, and the parts the middleware appended as the turn tail come last and are never
 * marked. With `existingMarkers: 'replace'` the caller's markers are removed first; with
 * `'keep'` they take slots first and the plan fills the rest. Nothing in `params` is mutated.
 */
export function planPromptBreakpoints(input: PromptPlanInput): PromptPlan {
  const { params, counter } = input;
  const slots: BreakpointSlot[] = [];
  const blocks: PromptBlockHash[] = [];
  const callerMarkers: CallerMarker[] = [];
  const zoneTokens: Record<Zone, number> = { global: 0, session: 0, history: 0, tail: 0 };
  let prefix = EMPTY_PREFIX_HASH;
  const addSlot = (
    path: string,
    zone: Zone,
    identity: unknown,
    tokens: number,
    cacheable: boolean,
    messageIndex: number | null,
    options: ProviderOptionsRecord | undefined,
  ) => {
    prefix = chainHash(prefix, sha256(stableText(identity)));
    blocks.push({ path, zone, hash: prefix });
    zoneTokens[zone] += tokens;
    slots.push({
      position: slots.length,
      path,
      zone,
      messageIndex,
      prefixHash: zone === 'tail' ? null : prefix,
      cacheable,
      tokens,
    });
    const marker = anthropicMarkerOf(options);
    if (marker && input.existingMarkers === 'keep') {
      callerMarkers.push(marker.ttl === '1h' ? { path, ttl: '1h' } : { path });
    }
  };

  const tools = params.tools ?? [];
  tools.forEach((tool, index) => {
    const { providerOptions, ...identity } = tool;
    const text = `${tool.name}\n${tool.description ?? ''}\n${stableText(tool.inputSchema ?? {})}`;
    addSlot(`tools[${index}]`, 'global', identity, counter.countText(text, 'json'), true, null, providerOptions);
  });
  let systemIndex = 0;
  params.prompt.forEach((message) => {
    if (message.role !== 'system') return;
    const text = typeof message.content === 'string' ? message.content : '';
    addSlot(
      `system[${systemIndex++}]`,
      'session',
      { system: text },
      counter.countText(text),
      text !== '',
      null,
      message.providerOptions,
    );
  });
  params.prompt.forEach((message, messageIndex) => {
    if (message.role === 'system' || typeof message.content === 'string') return;
    message.content.forEach((part, partIndex) => {
      if (part.type === 'tool-approval-response') return; // never sent as a block
      const path = partPath(messageIndex, partIndex);
      const zone: Zone = input.tailMessageParts.has(path) ? 'tail' : 'history';
      const { providerOptions, ...identity } = part;
      addSlot(
        path,
        zone,
        { role: message.role, ...identity },
        partTokens(part, counter),
        isCacheable(part) && !(input.assistantUnmarkable === true && message.role === 'assistant'),
        messageIndex,
        providerOptions ?? (partIndex === message.content.length - 1 ? message.providerOptions : undefined),
      );
    });
  });

  const row = resolveAnthropicModel(input.modelId, input.models);
  const lastAssistant = params.prompt.findLastIndex((message) => message.role === 'assistant');
  const topLevelMarker = input.existingMarkers === 'keep' && anthropicMarkerOf(params.providerOptions) !== null;
  const plan = planBreakpoints({
    slots,
    mode: 'plan',
    ttl: input.ttl,
    floorTokens: row.effectiveFloorTokens,
    sessionMinTokens: DEFAULT_SESSION_BREAKPOINT_MIN_TOKENS,
    previous: input.previous,
    lastAssistantMessageIndex: lastAssistant >= 0 ? lastAssistant : null,
    markers: callerMarkers,
    maxBreakpoints: ANTHROPIC_MAX_BREAKPOINTS - (topLevelMarker ? 1 : 0),
  });
  const marks = new Map(plan.breakpoints.map((breakpoint) => [breakpoint.path, cacheControlMarker(breakpoint.ttl)]));
  return {
    params: applyMarkers(params, marks, topLevelMarker),
    plan,
    blocks,
    zoneTokens,
    floorTokens: row.effectiveFloorTokens,
  };
}

function applyMarkers(
  params: MiddlewareCallParams,
  marks: ReadonlyMap<string, { type: 'ephemeral'; ttl?: '1h' }>,
  keepTopLevel: boolean,
): MiddlewareCallParams {
  const mark = (path: string, options: ProviderOptionsRecord | undefined) => {
    const marker = marks.get(path);
    const cleared = withoutAnthropicMarker(options);
    return marker ? withAnthropicMarker(cleared, marker) : cleared;
  };
  const tools = params.tools?.map((tool, index) => withOptions(tool, mark(`tools[${index}]`, tool.providerOptions)));
  let systemIndex = 0;
  const prompt = params.prompt.map((message, messageIndex): PromptMessage => {
    if (message.role === 'system') return withOptions(message, mark(`system[${systemIndex++}]`, message.providerOptions));
    if (typeof message.content === 'string') return message;
    const content = message.content.map((part, partIndex) =>
      withOptions(part, mark(partPath(messageIndex, partIndex), part.providerOptions)),
    );
    // A message-level marker applies to the message's last part; the plan marks parts directly.
    return withOptions({ ...message, content }, withoutAnthropicMarker(message.providerOptions));
  });
  const providerOptions = keepTopLevel ? params.providerOptions : withoutAnthropicMarker(params.providerOptions);
  return {
    ...params,
    prompt,
    ...(tools ? { tools } : {}),
    ...(providerOptions ? { providerOptions } : {}),
  } as MiddlewareCallParams;
}

function withOptions<T extends { providerOptions?: ProviderOptionsRecord }>(
  item: T,
  options: ProviderOptionsRecord | undefined,
): T {
  if (options === item.providerOptions) return item;
  const { providerOptions: _old, ...rest } = item;
  return (options ? { ...rest, providerOptions: options } : rest) as T;
}

export function partPath(messageIndex: number, partIndex: number): string {
  return `messages[${messageIndex}].content[${partIndex}]`;
}

function isCacheable(part: PromptPart): boolean {
  if (part.type === 'reasoning') return false;
  if (part.type === 'text') return (part.text ?? '') !== '';
  return true;
}

function partTokens(part: PromptPart, counter: TokenCounter): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return counter.countText(part.text ?? '');
    case 'tool-call':
      return counter.countText(`${part.toolName ?? ''}${stableText(part.input ?? {})}`, 'json');
    case 'tool-result':
      return counter.countText(stableText(part.output ?? null), 'json');
    case 'file':
      return FILE_PART_TOKENS;
    default:
      return counter.countText(stableText(part), 'json');
  }
}

/** JSON text for hashing and counting; binary data as base64 so equal bytes give equal text. */
export function stableText(value: unknown): string {
  return (
    JSON.stringify(value, (_key, entry: unknown) => {
      if (entry instanceof Uint8Array) return Buffer.from(entry).toString('base64');
      if (entry instanceof URL) return entry.href;
      return entry;
    }) ?? 'null'
  );
}
