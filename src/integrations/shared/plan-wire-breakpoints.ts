import type { AnthropicModelRow, AnthropicTtl } from '../../providers/anthropic/models.js';
import type { AnthropicCacheState } from '../../providers/anthropic/place-breakpoints.js';
import { cacheControlMarker } from '../../providers/anthropic/place-breakpoints.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { type ForkMatch, type KnownConversations, planWithForks } from './fork-recognition.js';
import { type ExistingMarkers, type PromptPlan, partPath, planPromptBreakpoints } from './plan-prompt-breakpoints.js';
import type { MiddlewareCallParams, PromptMessage, PromptPart } from './prompt-view.js';

type WireBlock = Record<string, unknown>;
interface WireBody {
  model?: unknown;
  system?: string | WireBlock[];
  tools?: WireBlock[];
  messages?: Array<{ role: string; content: string | WireBlock[] }>;
  cache_control?: unknown;
  [key: string]: unknown;
}

/**
 * Cachet's breakpoint plan applied to a Messages API body that another library built (pi-ai's
 * `onPayload`): every `cache_control` is removed (or kept, with `existingMarkers: 'keep'`), the
 * `tail` texts are appended to the last user message (none after a trailing assistant message, a
 * prefill the model continues), and the plan's markers are set on the
 * blocks at its paths. With `forks`, a call repeating a known conversation's prefix is planned as
 * a fork (`planWithForks`: no marker at its end) and `fork` says which. Returns a new body; the
 * input is not changed.
 */
export function planWireBreakpoints(
  input: unknown,
  options: {
    tail: readonly string[];
    previous: AnthropicCacheState | null;
    ttl: { global: AnthropicTtl; session: AnthropicTtl; history: AnthropicTtl };
    existingMarkers: ExistingMarkers;
    counter: TokenCounter;
    models?: readonly AnthropicModelRow[];
    /** Recognise forks of the conversations in `known`; this call belongs to `conversationId`. */
    forks?: { known: KnownConversations; conversationId: string };
  },
): { body: WireBody; planned: PromptPlan; fork: ForkMatch | null } {
  const body = structuredClone(input) as WireBody;
  const systemBlocks: WireBlock[] =
    typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : Array.isArray(body.system) ? body.system : [];
  if (typeof body.system === 'string') body.system = systemBlocks;
  const messages = body.messages ?? [];
  for (const message of messages) {
    if (typeof message.content === 'string') message.content = [{ type: 'text', text: message.content }];
  }
  const last = messages.at(-1);
  const tailParts = new Set<string>();
  // After an assistant prefill a user message would end it: no request tail (the caller warns).
  if (options.tail.length > 0 && last?.role !== 'assistant') {
    const tailBlocks = options.tail.map((text) => ({ type: 'text', text }));
    if (last?.role === 'user') (last.content as WireBlock[]).push(...tailBlocks);
    else messages.push({ role: 'user', content: tailBlocks });
    const target = messages.at(-1)!;
    const start = (target.content as WireBlock[]).length - tailBlocks.length;
    tailBlocks.forEach((_block, index) => {
      tailParts.add(partPath(systemBlocks.length + messages.length - 1, start + index));
    });
  }
  const keep = options.existingMarkers === 'keep';
  const markerOf = (block: WireBlock) =>
    keep && block.cache_control ? { anthropic: { cacheControl: block.cache_control as Record<string, unknown> } } : undefined;
  const prompt: PromptMessage[] = [
    ...systemBlocks.map((block): PromptMessage => {
      const options = markerOf(block);
      return { role: 'system', content: String(block.text ?? ''), ...(options ? { providerOptions: options } : {}) };
    }),
    ...messages.map(
      (message): PromptMessage => ({
        role: message.role === 'assistant' ? 'assistant' : 'user',
        content: (message.content as WireBlock[]).map((block) => partOf(block, markerOf(block))),
      }),
    ),
  ];
  const view: MiddlewareCallParams = {
    prompt,
    tools: (body.tools ?? []).map((tool) => {
      const options = markerOf(tool);
      return {
        type: 'function',
        name: String(tool.name ?? ''),
        description: String(tool.description ?? ''),
        inputSchema: tool.input_schema,
        ...(options ? { providerOptions: options } : {}),
      };
    }),
  };
  const planInput = {
    params: view,
    modelId: String(body.model ?? ''),
    tailMessageParts: tailParts,
    previous: options.previous,
    ttl: options.ttl,
    existingMarkers: options.existingMarkers,
    counter: options.counter,
    ...(options.models ? { models: options.models } : {}),
  };
  const { planned, fork } = options.forks
    ? planWithForks(options.forks.known, options.forks.conversationId, planInput)
    : { planned: planPromptBreakpoints(planInput), fork: null };
  const marks = new Map(planned.plan.breakpoints.map((breakpoint) => [breakpoint.path, cacheControlMarker(breakpoint.ttl)]));
  const setMarker = (block: WireBlock, path: string) => {
    delete block.cache_control;
    const marker = marks.get(path);
    if (marker) block.cache_control = marker;
  };
  for (const [index, tool] of (body.tools ?? []).entries()) setMarker(tool, `tools[${index}]`);
  for (const [index, block] of systemBlocks.entries()) setMarker(block, `system[${index}]`);
  messages.forEach((message, messageIndex) => {
    (message.content as WireBlock[]).forEach((block, blockIndex) => {
      setMarker(block, partPath(systemBlocks.length + messageIndex, blockIndex));
    });
  });
  if (!keep) delete body.cache_control;
  body.messages = messages;
  return { body, planned, fork };
}

function partOf(block: WireBlock, providerOptions: PromptPart['providerOptions']): PromptPart {
  const base: PromptPart = (() => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: String(block.text ?? '') };
      case 'thinking':
      case 'redacted_thinking':
        return { type: 'reasoning', text: String(block.thinking ?? block.data ?? '') };
      case 'tool_use':
        return { type: 'tool-call', toolCallId: String(block.id ?? ''), toolName: String(block.name ?? ''), input: block.input };
      case 'tool_result':
        return { type: 'tool-result', toolCallId: String(block.tool_use_id ?? ''), output: block.content };
      default: {
        const { cache_control: _marker, ...rest } = block;
        return { type: String(block.type), input: rest };
      }
    }
  })();
  return providerOptions ? { ...base, providerOptions } : base;
}
