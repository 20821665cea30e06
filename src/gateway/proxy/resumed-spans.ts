import { createHash } from 'node:crypto';
import type { OutgoingBody } from './body-pieces.js';
import { isLent } from './body-slabs.js';
import { jsonSpans, jsonSpansFrom, type OpenContainer, type PausedScan, type SpanFailure, type ValueSpan } from './json-spans.js';
import { equalUpTo } from './kept-body.js';

/** Smaller bodies are scanned whole: hashing their opening and comparing costs about what the scan does. */
const RESUMED_FROM_BYTES = 16 * 1024;

export interface ResumedSpansOptions {
  /** As `jsonSpans`' `indexDepth`. */
  indexDepth: number;
  /** Openings whose last body is looked up (each a hash and a weak reference; the bodies are the tracker's). */
  remembered: number;
  /** Where a body's opening ends: the first scan of every body pauses after this item. */
  pauseAfterOpening(bytes: Uint8Array, open: readonly OpenContainer[], item: ValueSpan): boolean;
  /**
   * Where a next body opening alike may resume, from this body's whole spans and the list its
   * opening paused in: where it starts and how many items the opening held (null: nowhere).
   */
  stopOf(root: ValueSpan, opening: { listStart: number; items: number }): PausedScan | null;
}

export interface ResumedSpansReader {
  /** `jsonSpans(bytes, indexDepth)`, the same result, resumed past what the conversation's last body shared with it. */
  read(bytes: Uint8Array): ValueSpan | SpanFailure;
  /**
   * The body `read` last read is now kept as `kept` (its bytes, in memory that lives as long as
   * the tracker keeps it): a next body resumes against `kept`. Required for a lent body
   * (`BodyLease`), which is remembered only once kept: its memory is reused after the exchange.
   */
  kept(bytes: Uint8Array, kept: OutgoingBody): void;
  /** Bodies whose scan resumed from a remembered one. */
  readonly resumed: number;
  /**
   * What the last `read` compared: its body's first `bytes` bytes equal `body`'s (the remembered
   * body it resumed from); null when it did not resume. Lets a later pass over the same two bodies
   * (`parseReusing`) skip comparing those bytes again.
   */
  readonly lastShared: SharedPrefix | null;
}

/** `bytes` leading bytes of a body equal to `body`'s. */
export interface SharedPrefix {
  body: OutgoingBody;
  bytes: number;
}

/**
 * Value spans for a stream of bodies: a conversation's next body repeats its last one up to the
 * end of its history, so the scan pauses after the history's opening, looks up the last body that
 * opened with the same bytes, and when the new body equals it up to that body's stop, goes on
 * from there instead of scanning the history again. Equal bytes scan alike, so the result is
 * always the whole scan's. A body's stop lives as long as the body (the conversation tracker keeps
 * it under its byte budget); this reader holds it weakly. The proxy's key fields and `--plan`'s
 * splice each read through one (`keyFieldsReader`, `planSpansReader`).
 *
 * @example
 * const reader = resumedSpansReader({ indexDepth: 1, remembered: 1024, pauseAfterOpening, stopOf });
 * const root = reader.read(bytes); // as jsonSpans(bytes, 1)
 */
export function resumedSpansReader(options: ResumedSpansOptions): ResumedSpansReader {
  const latest = new Map<string, WeakRef<OutgoingBody>>();
  const stops = new WeakMap<OutgoingBody, PausedScan>();
  // A body read but not yet kept: its opening and stop (weakly: a body never kept is forgotten).
  const unkept = new WeakMap<Uint8Array, { opening: string; stop: PausedScan }>();
  const remember = (opening: string, body: OutgoingBody, stop: PausedScan) => {
    latest.delete(opening);
    stops.set(body, stop);
    latest.set(opening, new WeakRef(body));
    if (latest.size > options.remembered) latest.delete(latest.keys().next().value as string);
  };
  let resumed = 0;
  let lastShared: SharedPrefix | null = null;
  const read = (bytes: Uint8Array): ValueSpan | SpanFailure => {
    lastShared = null;
    if (bytes.byteLength < RESUMED_FROM_BYTES) return jsonSpans(bytes, options.indexDepth);
    const opened = jsonSpansFrom(bytes, options.indexDepth, {
      pauseAfter: (open, item) => options.pauseAfterOpening(bytes, open, item),
    });
    if (typeof opened === 'string' || !('at' in opened)) return opened;
    // Read before the scan resumes: a resumed scan adds to the containers it starts from.
    const list = opened.open.at(-1)!.span;
    const openingList = { listStart: list.start, items: list.items?.length ?? 0 };
    const opening = createHash('sha1').update(bytes.subarray(0, opened.at)).digest('base64');
    const previous = latest.get(opening)?.deref();
    const stop = previous ? stops.get(previous) : undefined;
    const from = previous && stop && sharesUpTo(previous, bytes, stop.at) ? copyPausedScan(stop) : opened;
    if (from !== opened) {
      resumed++;
      lastShared = { body: previous!, bytes: from.at };
    }
    const root = jsonSpansFrom(bytes, options.indexDepth, { resume: from });
    if (typeof root === 'string') return root;
    if ('at' in root) return 'not-json';
    const next = options.stopOf(root, openingList);
    latest.delete(opening);
    if (next) unkept.set(bytes, { opening, stop: next });
    // A lent body's memory is written over after its exchange: remembered only once kept.
    if (next && !isLent(bytes)) remember(opening, bytes, next);
    return root;
  };
  return {
    read,
    kept(bytes, kept) {
      const read = unkept.get(bytes);
      if (!read) return;
      unkept.delete(bytes);
      const current = latest.get(read.opening)?.deref();
      // Another body with the same opening was read since: it is the one to resume from.
      if (current !== undefined && current !== bytes) return;
      remember(read.opening, kept, read.stop);
    },
    get resumed() {
      return resumed;
    },
    get lastShared() {
      return lastShared;
    },
  };
}

/** Whether `bytes` equal `previous` up to `at` (a stop follows an object or array: its end needs no next byte). */
function sharesUpTo(previous: OutgoingBody, bytes: Uint8Array, at: number): boolean {
  return bytes.byteLength > at && equalUpTo(previous, bytes, at);
}

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
function copyPausedScan(stop: PausedScan): PausedScan {
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
