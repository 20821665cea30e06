import type { ImageBlock, Message, TextBlock, UserContentBlock } from '../model/content.js';
import { mediaPlaceholder } from './markers.js';
import type { RewriteContext } from './observation-masking.js';
import { restoreIdFor } from './offload-store.js';

function carriesImage(message: Message): boolean {
  return (
    message.role === 'user' &&
    message.content.some(
      (block) =>
        block.type === 'image' || (block.type === 'tool_result' && block.content.some((inner) => inner.type === 'image')),
    )
  );
}

/**
 * Sliding visual evidence window: images stay only in the last `keep` messages that carry
 * media; older images become a placeholder naming a restore id (the image is offloaded).
 * Returns the tokens saved; changes `history` in place (copy on write per message).
 */
export function applyMediaWindow(history: Message[], keep: number, context: RewriteContext): number {
  const withMedia: number[] = [];
  history.forEach((message, index) => {
    if (carriesImage(message)) withMedia.push(index);
  });
  const strip = withMedia.slice(0, Math.max(0, withMedia.length - keep));
  let saved = 0;
  const replaceImage = (image: ImageBlock, toolUseId: string | null): TextBlock => {
    const restoreId = restoreIdFor([image]);
    const originalTokens = context.counter.countBlock(image);
    const placeholder: TextBlock = { type: 'text', text: mediaPlaceholder(restoreId) };
    const keptTokens = context.counter.countBlock(placeholder);
    context.offloads.push({
      record: { id: restoreId, sessionId: context.sessionId, toolUseId, reason: 'media', content: [image], originalTokens },
      keptTokens,
    });
    saved += originalTokens - keptTokens;
    return placeholder;
  };
  for (const index of strip) {
    const message = history[index] as Message;
    if (message.role !== 'user') continue;
    const content: UserContentBlock[] = message.content.map((block) => {
      if (block.type === 'image') return replaceImage(block, null);
      if (block.type === 'tool_result' && block.content.some((inner) => inner.type === 'image')) {
        return {
          ...block,
          content: block.content.map((inner) => (inner.type === 'image' ? replaceImage(inner, block.toolUseId) : inner)),
        };
      }
      return block;
    });
    history[index] = { role: 'user', content };
  }
  return saved;
}
