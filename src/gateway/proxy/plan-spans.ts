import type { OutgoingBody } from './body-pieces.js';
import type { PausedScan, SpanFailure, ValueSpan } from './json-spans.js';
import { pausedAfterListItems, resumedSpansReader, type SharedPrefix } from './resumed-spans.js';
import { SPLICE_INDEX_DEPTH } from './splice-cache-fields.js';

/** Openings whose last body is looked up (each a hash and a weak reference; the bodies are the tracker's). */
const OPENINGS_REMEMBERED = 4096;
const HISTORY_KEYS = new Set(['messages', 'input']);

export interface PlanSpansReader {
  /** `jsonSpans(bytes, SPLICE_INDEX_DEPTH)`, the same result, resumed past what the conversation's last body shared with it. */
  read(bytes: Uint8Array): ValueSpan | SpanFailure;
  /**
   * The body `read` last read is now kept as `kept` (the conversation's parsed history's bytes):
   * a lent body (`BodyLease`) is remembered only then, against the kept copy.
   */
  kept(bytes: Uint8Array, kept: OutgoingBody): void;
  /** Bodies whose scan resumed from a remembered one. */
  readonly resumed: number;
  /** The last read's leading bytes equal to the body it resumed from (null: it did not resume). */
  readonly lastShared: SharedPrefix | null;
}

/**
 * The `--plan` scan of a stream of bodies (members and history items indexed, as the splice and
 * `parseReusing` need them): a conversation's next body repeats its last one up to the end of its
 * history, so the scan stops after the list's first item, looks up the last body that opened with
 * the same bytes, and when the new body equals it up to the end of that body's last item, goes on
 * from there with its spans (every item's) instead of scanning the history again. Equal bytes scan
 * alike, so the result is always the whole scan's. A body's remembered stop lives as long as the
 * body itself (the conversation tracker keeps it under its byte budget, as the parsed history's
 * bytes); this reader holds it weakly. Bodies under 16 KB are scanned whole.
 *
 * @example
 * const reader = planSpansReader();
 * const root = reader.read(bytes); // as jsonSpans(bytes, SPLICE_INDEX_DEPTH)
 */
export function planSpansReader(): PlanSpansReader {
  return resumedSpansReader({
    indexDepth: SPLICE_INDEX_DEPTH,
    remembered: OPENINGS_REMEMBERED,
    pauseAfterOpening: (_bytes, open) => open.length === 2 && HISTORY_KEYS.has(open[0]!.key ?? ''),
    stopOf: (root, opening) => stopAfterList(root, opening.listStart),
  });
}

/**
 * The state a scan of `root`'s bytes had just past the last item of the list starting at
 * `listStart`: the root's members before the list and every item of the list. Null when the
 * list is empty or ends in a value other than an object or array.
 */
function stopAfterList(root: ValueSpan, listStart: number): PausedScan | null {
  const position = root.members!.findIndex((member) => member.value.start === listStart);
  const items = root.members![position]?.value.items;
  const last = items?.at(-1);
  if (!items || !last || (last.kind !== 'object' && last.kind !== 'array')) return null;
  return pausedAfterListItems(root, position, items.slice());
}
