import type { BlockRecord, CanonicalRequest, Zone } from '../../model/request.js';
import { DEFAULT_MEDIA_TOKENS } from '../../tokens/media-token-estimates.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { BreakpointSlot } from '../anthropic/place-breakpoints.js';
import type { ChatPart, WireOrigin } from '../openai-chat/chat-messages.js';
import type { OpenRouterMessage } from './openrouter-message.js';

/** The Anthropic planner's view of an OpenRouter body, and the part each slot would mark. */
export interface ChatBreakpointSlots {
  slots: BreakpointSlot[];
  /** The content part at each slot's position; null where no marker can go (tools, tool calls, reasoning, strings). */
  targets: Array<ChatPart | null>;
}

/**
 * Every position Anthropic counts in an OpenRouter body, in the order OpenRouter forwards them:
 * tools, system parts, then per message its reasoning, content parts and tool calls. Counting
 * each part of a tool message as its own position errs towards more positions than Anthropic
 * sees (it wraps them in one tool_result), so the lookback guard fires early rather than late.
 * Parts without an origin were added by the turn tail.
 *
 * @example
 * const { slots, targets } = chatBreakpointSlots(request, built.messages, built.origins, counter);
 */
export function chatBreakpointSlots(
  request: CanonicalRequest,
  messages: readonly OpenRouterMessage[],
  origins: ReadonlyMap<object, WireOrigin>,
  counter: TokenCounter,
): ChatBreakpointSlots {
  const records = new Map<string, BlockRecord>(request.blocks.map((record) => [record.path, record]));
  const slots: BreakpointSlot[] = [];
  const targets: Array<ChatPart | null> = [];
  let tailCount = 0;
  const add = (slot: Omit<BreakpointSlot, 'position'>, target: ChatPart | null) => {
    slots.push({ ...slot, position: slots.length });
    targets.push(target);
  };
  const fromOrigin = (origin: WireOrigin, tokens: number, target: ChatPart | null) =>
    add(
      {
        path: origin.path,
        zone: origin.zone,
        messageIndex: origin.messageIndex,
        prefixHash: prefixHashOf(records, origin.path),
        cacheable: target !== null,
        tokens,
      },
      target,
    );
  const fromTail = (tokens: number) =>
    add({ path: `tail[${tailCount++}]`, zone: 'tail', messageIndex: null, prefixHash: null, cacheable: false, tokens }, null);

  request.tools.forEach((tool, index) => {
    const path = `tools[${index}]`;
    const zone: Zone = records.get(path)?.zone ?? (index < request.layout.globalToolCount ? 'global' : 'session');
    // Chat Completions tools carry no markers; they still count as positions and tokens.
    add(
      {
        path,
        zone,
        messageIndex: null,
        prefixHash: prefixHashOf(records, path),
        cacheable: false,
        tokens: counter.countBlock(tool),
      },
      null,
    );
  });

  for (const message of messages) {
    const messageOrigin = origins.get(message);
    if ('reasoning_details' in message && message.reasoning_details && messageOrigin) {
      message.reasoning_details.forEach((detail, index) => {
        const tokens = detail.type === 'reasoning.text' ? counter.countText(detail.text) : 0;
        fromOrigin({ ...messageOrigin, path: `${messageOrigin.path}.reasoning_details[${index}]` }, tokens, null);
      });
    }
    const content = message.content;
    if (typeof content === 'string') {
      const tokens = counter.countText(content);
      if (messageOrigin) fromOrigin({ ...messageOrigin, path: `${messageOrigin.path}.content` }, tokens, null);
      else fromTail(tokens);
    } else if (Array.isArray(content)) {
      for (const part of content as ChatPart[]) {
        const origin = origins.get(part);
        const tokens = partTokens(part, counter);
        if (!origin) fromTail(tokens);
        else fromOrigin(origin, tokens, origin.markable && !(part.type === 'text' && part.text === '') ? part : null);
      }
    }
    if ('tool_calls' in message) {
      for (const call of message.tool_calls ?? []) {
        const origin = origins.get(call);
        const tokens = counter.countText(`${call.function.name}${call.function.arguments}`, 'json');
        if (origin) fromOrigin(origin, tokens, null);
        else fromTail(tokens);
      }
    }
  }
  return { slots, targets };
}

function partTokens(part: ChatPart, counter: TokenCounter): number {
  switch (part.type) {
    case 'text':
      return counter.countText(part.text);
    case 'image_url':
      return DEFAULT_MEDIA_TOKENS.image;
    case 'file':
      return DEFAULT_MEDIA_TOKENS.document;
    default:
      return counter.countText(JSON.stringify(part), 'json');
  }
}

/** The canonical prefix hash through a wire item; a tool message's parts take their tool_result block's. */
function prefixHashOf(records: ReadonlyMap<string, BlockRecord>, path: string): string | null {
  return records.get(path)?.prefixHash ?? records.get(path.replace(/\.content\[\d+\]$/, ''))?.prefixHash ?? null;
}
