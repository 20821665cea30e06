import type { JsonRecord } from './json-helpers.js';

/**
 * Whether a Messages block can carry a cache marker that marks something, as `cachet proxy --plan`
 * places them and `cachet analyze` replays that plan: thinking blocks and empty text cannot carry
 * one, and a deferred tool (`defer_loading`, tool search) is not part of the cached prefix.
 */
export function isMarkableBlock(block: JsonRecord, zone: 'tools' | 'system' | 'messages'): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text' && block.text === '') return false;
  return !(zone === 'tools' && block.defer_loading === true);
}
