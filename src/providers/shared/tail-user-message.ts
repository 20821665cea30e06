import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import type { Message } from '../../model/content.js';

/**
 * Whether the turn tail needs a user message of its own: it has items and the request does not
 * end with a user message to carry them. Warns `tail-as-user-message` when another message ends
 * the request (a request with no messages at all is not worth a warning).
 */
export function tailNeedsUserMessage(messages: readonly Message[], tailItemCount: number, warnings: AdapterWarning[]): boolean {
  const lastMessage = messages.at(-1);
  if (tailItemCount === 0 || lastMessage?.role === 'user') return false;
  if (lastMessage)
    warnings.push(
      adapterWarning(
        'tail-as-user-message',
        'turn tail sent as a new user message because the request does not end with a user message',
      ),
    );
  return true;
}
