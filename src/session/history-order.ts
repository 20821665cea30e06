import type { Message } from '../model/content.js';
import { ValidationError } from '../model/errors.js';

/**
 * The order rule of history, one path for every way messages enter a session (`append`,
 * `rewriteHistory`, `fromJSON`): roles alternate, and history opens with a user message when
 * nothing precedes it. `previous` is the message before `messages[0]` (the last session-static
 * or history message), `pathOf` names a message in the error.
 */
export function validateHistoryOrder(
  previous: Message | undefined,
  messages: readonly Message[],
  pathOf: (index: number) => string,
): void {
  messages.forEach((message, index) => {
    const before = index === 0 ? previous : messages[index - 1];
    if (before && before.role === message.role) {
      throw new ValidationError(`${pathOf(index)}.role`, `a role other than "${before.role}" (roles must alternate)`);
    }
    if (!before && message.role !== 'user') {
      throw new ValidationError(`${pathOf(index)}.role`, '"user" for the first message of history');
    }
  });
}
