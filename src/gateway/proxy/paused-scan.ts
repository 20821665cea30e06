import type { OpenContainer, PausedScan, ValueSpan } from './json-spans.js';

/**
 * The state a scan of `root`'s bytes had just past the last of `items`, inside the list that is
 * the root's member at `position`: the root's members before the list, and `items` as the list's
 * items so far (the caller chooses which of the scanned items a resumed scan needs to keep).
 */
export function pausedAfterListItems(root: ValueSpan, position: number, items: ValueSpan[]): PausedScan {
  const members = root.members!;
  const member = members[position]!;
  const rootOpen: OpenContainer = {
    span: { kind: 'object', start: root.start, end: -1, members: members.slice(0, position) },
    key: member.key,
    keyStart: member.keyStart,
  };
  return {
    at: items.at(-1)!.end,
    open: [rootOpen, { span: { kind: 'array', start: member.value.start, end: -1, items }, key: null, keyStart: -1 }],
  };
}

/** A stop's containers copied (a resumed scan adds to them); the spans inside are shared, never changed. */
export function copyPausedScan(stop: PausedScan): PausedScan {
  return {
    at: stop.at,
    open: stop.open.map((open) => ({
      ...open,
      span: {
        ...open.span,
        ...(open.span.members ? { members: [...open.span.members] } : {}),
        ...(open.span.items ? { items: [...open.span.items] } : {}),
      },
    })),
  };
}
