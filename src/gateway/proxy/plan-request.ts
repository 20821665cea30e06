import type { VolatileMovedPayload } from '../../events/catalog.js';
import { bodyOfPieces, type OutgoingBody, ownCopy, piecesOf, rangeOf } from './body-pieces.js';
import { isLent } from './body-slabs.js';
import type { Conversation } from './conversation-tracker.js';
import { jsonSpans, MAX_PLAN_DEPTH } from './json-spans.js';
import { keptSharing, noteSharedPrefix } from './kept-body.js';
import { keyFieldsFromSpans } from './key-fields.js';
import type { MessagesCheckpoint } from './plan-block-scan.js';
import { type PlanOptions, planCacheFields } from './plan-cache-fields.js';
import type { PlanSpansReader } from './plan-spans.js';
import { type ParsedHistory, parseReusing } from './reuse-parse.js';
import { SPLICE_INDEX_DEPTH, spliceCacheFields } from './splice-cache-fields.js';
import { createProxyVolatileState, spliceVolatileSystem } from './volatile-plan.js';
import type { WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);
const decoder = new TextDecoder();
/** `--volatile auto` edits the turn's user message: body → messages → message → content, indexed. */
const VOLATILE_INDEX_DEPTH = 3;
/**
 * The plan's scan of each kept history's messages (`ParsedHistory.items`), for the conversation's
 * next body to resume after: it lives exactly as long as the conversation keeps that history.
 */
const checkpoints = new WeakMap<readonly unknown[], MessagesCheckpoint>();

export type PlannedRequest =
  | {
      kind: 'planned';
      clientBody: JsonRecord;
      conversation: Conversation;
      /** What the conversation keeps for parsing its next body (`keepHistory`); null when there is nothing to keep. */
      history: ParsedHistory | null;
      /** The client's bytes with the plan's cache fields spliced in (in pieces: see `BodyPieces`). */
      sent: OutgoingBody;
      /** The planned body as an object, for judging and the capture. */
      sentBody: JsonRecord;
      breakpoints: string[];
      /** `--volatile auto`: what moved, when that changed since the conversation's previous request; else null. */
      volatileMoved: VolatileMovedPayload | null;
    }
  | {
      kind: 'unplanned';
      /** Why the body is forwarded as it came, for a `warning.raised`; null for bodies not meant to be planned. */
      reason: string | null;
      clientBody: JsonRecord | null;
    };

/**
 * `--plan` for one request: locate the body's value spans, plan from its parsed form, splice the
 * plan's cache fields into the original bytes. A body that is not a JSON object, is nested
 * deeper than `MAX_PLAN_DEPTH`, or that any step fails on is forwarded unchanged, with the reason.
 * `spans` (the proxy's, one for all conversations) resumes a body's scan past the history its
 * conversation's last body shared with it; without it the body is scanned whole.
 */
export function planRequest(
  route: WireRoute,
  clientBytes: Uint8Array,
  plan: PlanOptions,
  conversationFor: (body: JsonRecord) => Conversation,
  spans?: PlanSpansReader,
): PlannedRequest {
  let bytes = clientBytes;
  const volatileAuto = plan.volatile === 'auto' && route === 'anthropic';
  let root = volatileAuto ? jsonSpans(bytes, VOLATILE_INDEX_DEPTH) : (spans?.read(bytes) ?? jsonSpans(bytes, SPLICE_INDEX_DEPTH));
  switch (root) {
    case 'too-deep':
      return { kind: 'unplanned', reason: `the body nests deeper than ${MAX_PLAN_DEPTH} levels`, clientBody: null };
    case 'not-json':
    case 'not-an-object':
      // The upstream answers these itself (400); there is nothing to plan.
      return { kind: 'unplanned', reason: null, clientBody: null };
  }
  let clientBody: JsonRecord | null = null;
  try {
    // The conversation first (from the key fields' spans), then the body, parsed around the history it repeats.
    const fields = volatileAuto ? null : keyFieldsFromSpans(bytes, root);
    const known = fields ? conversationFor(fields.keyBody) : null;
    // The span reader compared the bytes it resumed past: parsing does not compare them again.
    const shared = volatileAuto ? null : (spans?.lastShared ?? null);
    const keep = isLent(bytes) ? keptOfLent(known?.history?.bytes, shared, spans) : undefined;
    const { body: original, history } = known
      ? parseReusing(bytes, root, known.history ?? null, shared, keep)
      : { body: JSON.parse(decoder.decode(bytes)) as unknown, history: null };
    if (!isRecord(original)) return { kind: 'unplanned', reason: null, clientBody: null };
    clientBody = original;
    const conversation = known ?? conversationFor(original);
    let parsed = original;
    let volatileMoved: VolatileMovedPayload | null = null;
    if (volatileAuto) {
      conversation.volatile ??= createProxyVolatileState();
      const moved = spliceVolatileSystem(bytes, root, original, conversation.volatile);
      if (moved) {
        bytes = moved.bytes;
        volatileMoved = moved.event;
        const reindexed = jsonSpans(bytes, SPLICE_INDEX_DEPTH);
        if (typeof reindexed === 'string') throw new Error(`the volatile move made the body ${reindexed}`);
        root = reindexed;
        parsed = JSON.parse(decoder.decode(bytes)) as JsonRecord;
      }
    }
    // The history parsed around the previous one's items: the plan's scan resumes after the messages they share.
    const kept = parsed === original && history !== null && parsed.messages === history.items;
    const planned = planCacheFields(
      route,
      parsed,
      {
        conversationId: conversation.key,
        previousResponseId: conversation.lastResponseId,
        previousBreakpointPosition: conversation.lastBreakpointPosition,
        ...(kept ? { messagesCheckpoint: (known?.history && checkpoints.get(known.history.items)) ?? null } : {}),
      },
      plan,
    );
    if (kept && planned.messagesCheckpoint) checkpoints.set(history.items, planned.messagesCheckpoint);
    const spliced = spliceCacheFields(route, bytes, root, parsed, planned);
    // Nothing that outlives the request may keep a view of a lent body: what is sent refers to the kept copy.
    const sent = isLent(clientBytes) ? outOfLent(spliced, clientBytes, history?.bytes ?? ownCopy(clientBytes)) : spliced;
    conversation.lastBreakpointPosition = planned.lastBreakpointPosition;
    return {
      kind: 'planned',
      clientBody: parsed,
      conversation,
      history,
      sent,
      sentBody: planned.body,
      breakpoints: planned.breakpoints,
      volatileMoved,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'unplanned', reason: `the plan could not be applied (${message})`, clientBody };
  }
}

/**
 * How a lent body's history keeps its bytes (`parseReusing`'s `keep`): a copy sharing the
 * conversation's last kept body's memory for what both share (what the span reader compared is
 * not compared again), remembered by the span reader against that copy, never the lent memory.
 */
function keptOfLent(
  last: OutgoingBody | undefined,
  shared: PlanSpansReader['lastShared'],
  spans: PlanSpansReader | undefined,
): (bytes: Uint8Array) => OutgoingBody {
  return (bytes) => {
    noteSharedPrefix(bytes, shared);
    const kept = keptSharing(last, bytes);
    spans?.kept(bytes, kept);
    return kept;
  };
}

/** `body` with every view of the lent `client` bytes replaced by the same bytes of `kept` (a copy of them). */
function outOfLent(body: OutgoingBody, client: Uint8Array, kept: OutgoingBody): OutgoingBody {
  if (body === client) return kept;
  const pieces: Uint8Array[] = [];
  for (const piece of piecesOf(body)) {
    if (piece.buffer !== client.buffer) {
      pieces.push(piece);
      continue;
    }
    const offset = piece.byteOffset - client.byteOffset;
    if (offset < 0 || offset + piece.byteLength > client.byteLength) throw new Error('a piece lies outside the lent body');
    pieces.push(...rangeOf(kept, offset, piece.byteLength));
  }
  return bodyOfPieces(pieces);
}
