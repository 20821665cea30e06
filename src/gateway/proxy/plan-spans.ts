import { createHash } from 'node:crypto';
import { jsonSpans, jsonSpansFrom, type PausedScan, type SpanFailure, type ValueSpan } from './json-spans.js';
import { copyPausedScan, pausedAfterListItems } from './paused-scan.js';
import { SPLICE_INDEX_DEPTH } from './splice-cache-fields.js';

/** Smaller bodies are scanned whole: hashing their opening and comparing costs about what the scan does. */
const RESUMED_FROM_BYTES = 16 * 1024;
/** Openings whose last body is looked up (each a hash and a weak reference; the bodies are the tracker's). */
const OPENINGS_REMEMBERED = 4096;
const HISTORY_KEYS = new Set(['messages', 'input']);

export interface PlanSpansReader {
  /** `jsonSpans(bytes, SPLICE_INDEX_DEPTH)`, the same result, resumed past what the conversation's last body shared with it. */
  read(bytes: Uint8Array): ValueSpan | SpanFailure;
  /** Bodies whose scan resumed from a remembered one. */
  readonly resumed: number;
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
  const latest = new Map<string, WeakRef<Uint8Array>>();
  const stops = new WeakMap<Uint8Array, PausedScan>();
  let resumed = 0;
  const read = (bytes: Uint8Array): ValueSpan | SpanFailure => {
    if (bytes.byteLength < RESUMED_FROM_BYTES) return jsonSpans(bytes, SPLICE_INDEX_DEPTH);
    const opened = jsonSpansFrom(bytes, SPLICE_INDEX_DEPTH, {
      pauseAfter: (open) => open.length === 2 && HISTORY_KEYS.has(open[0]!.key ?? ''),
    });
    if (typeof opened === 'string' || !('at' in opened)) return opened;
    const listStart = opened.open[1]!.span.start;
    const opening = createHash('sha1').update(bytes.subarray(0, opened.at)).digest('base64');
    const previous = latest.get(opening)?.deref();
    const stop = previous ? stops.get(previous) : undefined;
    const from = previous && stop && sharesUpTo(bytes, previous, stop.at) ? copyPausedScan(stop) : opened;
    if (from !== opened) resumed++;
    const root = jsonSpansFrom(bytes, SPLICE_INDEX_DEPTH, { resume: from });
    if (typeof root === 'string') return root;
    if ('at' in root) return 'not-json';
    const next = stopAfterList(root, listStart);
    latest.delete(opening);
    if (next) {
      stops.set(bytes, next);
      latest.set(opening, new WeakRef(bytes));
      if (latest.size > OPENINGS_REMEMBERED) latest.delete(latest.keys().next().value as string);
    }
    return root;
  };
  return {
    read,
    get resumed() {
      return resumed;
    },
  };
}

/** Whether `bytes` equal `previous` up to `at` (a stop follows an object or array: its end needs no next byte). */
function sharesUpTo(bytes: Uint8Array, previous: Uint8Array, at: number): boolean {
  if (bytes.byteLength <= at || previous.byteLength < at) return false;
  return Buffer.compare(view(bytes, at), view(previous, at)) === 0;
}

function view(bytes: Uint8Array, length: number): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, length);
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
