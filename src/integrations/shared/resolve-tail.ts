import { ValidationError } from '../../model/errors.js';
import { DEFAULT_SIZE_LIMITS } from '../../model/limits.js';
import type { HookReporter } from './contained-hooks.js';

/** Tail texts longer than this (UTF-16 code units, all texts together) are refused: the call goes out without them. */
export const MAX_TAIL_CHARS = DEFAULT_SIZE_LIMITS.maxBlockChars;

/**
 * The tail texts of one call from a caller's tail function. A function that throws, returns
 * something other than a string or a list of strings, or more than `MAX_TAIL_CHARS` is
 * reported (`onError`, `warning.raised`) and the call goes out with no tail — never a broken
 * request, never an exception into the host library. Empty strings are dropped.
 */
export function resolveTail(produce: () => unknown, reporter: HookReporter, where: string, conversationId: string): string[] {
  try {
    const value = produce();
    if (value === undefined || value === null) return [];
    const texts: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [value];
    texts.forEach((text, index) => {
      if (typeof text !== 'string') {
        throw new ValidationError(`tail[${index}]`, 'a string', `got ${text === null ? 'null' : typeof text}`);
      }
    });
    const strings = (texts as string[]).filter((text) => text !== '');
    const chars = strings.reduce((total, text) => total + text.length, 0);
    if (chars > MAX_TAIL_CHARS) {
      throw new ValidationError('tail', `at most ${MAX_TAIL_CHARS} characters`, `got ${chars}`);
    }
    return strings;
  } catch (error) {
    reporter.report(error, where, conversationId);
    return [];
  }
}
