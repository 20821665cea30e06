import { SystemMessage } from '@langchain/core/messages';
import type { ConversationState } from '../shared/conversation-store.js';
import type { TailItem } from '../shared/turn-tail.js';
import { moveAndPublishVolatile, type VolatileCallContext, viewHistoryTokens } from '../shared/volatile-auto.js';
import { type LangChainRequestParts, langChainPromptView } from './langchain-prompt-view.js';

/**
 * `volatile: 'auto'` for one LangChain model call: the system message's per-turn paragraphs
 * moved out (text blocks only; other blocks kept as they are), returned as turn-scoped tail
 * items, and `volatile.moved` published. Nothing moved, or a problem (reported): the request
 * as it came and no items.
 */
export function moveLangChainVolatileSystem<R extends LangChainRequestParts>(
  request: R,
  input: Omit<VolatileCallContext, 'state'> & { state: ConversationState },
): { request: R; items: TailItem[] } {
  const system = request.systemMessage;
  const content = system?.content;
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
  const textBlocks = blocks.filter((block) => block.type === 'text');
  const move = moveAndPublishVolatile(
    textBlocks.map((block) => (block as { text?: unknown }).text),
    () => viewHistoryTokens(langChainPromptView({ ...request, systemMessage: undefined }), input.counter),
    { ...input, state: input.state.volatile },
  );
  if (!move || !system) return { request, items: [] };
  let textIndex = 0;
  const kept = blocks.flatMap((block) => {
    if (block.type !== 'text') return [block];
    const text = move.texts[textIndex++] ?? '';
    return text === '' ? [] : [{ ...block, text }];
  });
  const systemMessage =
    kept.length === 0
      ? undefined
      : typeof content === 'string'
        ? new SystemMessage({ content: (kept[0] as { text: string }).text })
        : new SystemMessage({ content: kept as SystemMessage['content'] });
  return { request: { ...request, systemMessage }, items: move.items };
}
