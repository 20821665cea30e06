import { ValidationError } from '../../model/errors.js';
import { DEFAULT_SIZE_LIMITS } from '../../model/limits.js';
import type { HookReporter } from './contained-hooks.js';
import type { TailItem } from './turn-tail.js';

/** Tail texts longer than this (UTF-16 code units, all texts together) are refused: the call goes out without them. */
export const MAX_TAIL_CHARS = DEFAULT_SIZE_LIMITS.maxBlockChars;

const SCOPES = ['auto', 'turn', 'request'] as const;

/**
 * The tail items of one call from a caller's tail function: strings or `{ text, scope?, key? }`
 * (scope `auto` and key = position by default). A function that throws, returns anything else,
 * an unknown scope or more than `MAX_TAIL_CHARS` is reported (`onError`, `warning.raised`) and
 * the call goes out with no tail — never a broken request, never an exception into the host
 * library. Empty texts are dropped.
 */
export function resolveTail(produce: () => unknown, reporter: HookReporter, where: string, conversationId: string): TailItem[] {
  try {
    const value = produce();
    if (value === undefined || value === null) return [];
    const entries: unknown[] = Array.isArray(value) ? value : [value];
    const items = entries.map((entry, index) => tailItemOf(entry, index));
    const chars = items.reduce((total, item) => total + item.text.length, 0);
    if (chars > MAX_TAIL_CHARS) throw new ValidationError('tail', `at most ${MAX_TAIL_CHARS} characters`, `got ${chars}`);
    return items.filter((item) => item.text !== '');
  } catch (error) {
    reporter.report(error, where, conversationId);
    return [];
  }
}

function tailItemOf(entry: unknown, index: number): TailItem {
  const path = `tail[${index}]`;
  if (typeof entry === 'string') return { text: entry, scope: 'auto', key: `#${index}` };
  if (typeof entry !== 'object' || entry === null) {
    throw new ValidationError(path, 'a string or { text, scope? }', `got ${entry === null ? 'null' : typeof entry}`);
  }
  const { text, scope, key } = entry as { text?: unknown; scope?: unknown; key?: unknown };
  if (typeof text !== 'string') throw new ValidationError(`${path}.text`, 'a string', `got ${typeof text}`);
  if (scope !== undefined && !SCOPES.includes(scope as (typeof SCOPES)[number])) {
    throw new ValidationError(`${path}.scope`, '"auto", "turn" or "request"', `got ${JSON.stringify(scope)}`);
  }
  if (key !== undefined && typeof key !== 'string') throw new ValidationError(`${path}.key`, 'a string', `got ${typeof key}`);
  return { text, scope: (scope as TailItem['scope'] | undefined) ?? 'auto', key: key ?? `#${index}` };
}
