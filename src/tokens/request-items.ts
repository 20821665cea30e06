import { ValidationError } from '../model/errors.js';
import type { CanonicalRequest, Zone } from '../model/request.js';
import type { CountableItem } from './token-counter.js';

/** One countable item of a request and its zone, in the order of `request.blocks`. */
export interface RequestItem {
  zone: Zone;
  item: CountableItem;
}

/**
 * Every block of a request in prefix order (tools, system segments, message content blocks,
 * tail items), aligned index for index with `request.blocks`.
 */
export function requestItems(request: CanonicalRequest): RequestItem[] {
  const items: RequestItem[] = [];
  request.tools.forEach((tool, index) => {
    items.push({ zone: index < request.layout.globalToolCount ? 'global' : 'session', item: tool });
  });
  for (const segment of request.system) items.push({ zone: segment.zone, item: segment });
  request.messages.forEach((message, index) => {
    const zone: Zone = index < request.layout.sessionMessageCount ? 'session' : 'history';
    for (const block of message.content) items.push({ zone, item: block });
  });
  for (const item of request.tail.items) items.push({ zone: 'tail', item });
  if (items.length !== request.blocks.length) {
    throw new ValidationError(
      'request.blocks',
      `${items.length} block records (one per tool, segment, content block and tail item)`,
      `got ${request.blocks.length}`,
    );
  }
  return items;
}
