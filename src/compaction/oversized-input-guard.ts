import type { Message } from '../model/content.js';
import { OversizedInputError } from '../model/errors.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/**
 * Refuse a single input larger than `limit` tokens before it enters the session. Each block is
 * one input (a user text, a document, a tool output after the ingestion filter), so the error
 * names the block.
 *
 * @example
 * guardInput(message, counter, 120_000, 'messages[12]'); // throws OversizedInputError
 */
export function guardInput(message: Message, counter: TokenCounter, limit: number, path: string): void {
  message.content.forEach((block, index) => {
    const tokens = counter.countBlock(block);
    if (tokens > limit) throw new OversizedInputError(`${path}.content[${index}]`, tokens, limit);
  });
}
