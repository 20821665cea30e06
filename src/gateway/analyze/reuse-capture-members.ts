/**
 * The body members besides the history that a conversation sends again with every request
 * (its system prompt, its tools): `HistoryReuse` takes the previous line's value when the bytes
 * are the same, and parses a member only when they changed. A persona of a few kilobytes was
 * otherwise most of what each line had left to parse once its history was reused.
 */

import { type JsonLimits, LimitedWalk } from './json-limited-walk.js';

/** The body keys whose values are kept per conversation. */
export const REUSED_BODY_MEMBERS: ReadonlySet<string> = new Set(['system', 'tools']);

/** Where the body's value for `key` lies in the line: `[start, end)`. */
export interface MemberSpan {
  key: string;
  start: number;
  end: number;
}

/** A member's value as last read, with its bytes and counts (as `LimitedWalk` gives them at depth 2). */
export interface KeptMember {
  bytes: Buffer;
  value: unknown;
  nodes: number;
  deepest: number;
}

/** Where a body's member values sit: the line is 0, its body 1, the body's values 2. */
const MEMBER_DEPTH = 2;

/**
 * The value at `span`: the kept one when its bytes are the same, else parsed, walked within the
 * limits and frozen (it is shared with the conversation's later bodies). Null when the bytes do
 * not parse or pass the limits: the caller parses the line whole.
 */
export function memberAt(line: Buffer, span: MemberSpan, kept: KeptMember | undefined, limits: JsonLimits): KeptMember | null {
  const length = span.end - span.start;
  if (kept !== undefined && kept.bytes.length === length && line.compare(kept.bytes, 0, length, span.start, span.end) === 0) {
    return kept;
  }
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8', span.start, span.end));
  } catch {
    return null;
  }
  const walk = new LimitedWalk(limits, MEMBER_DEPTH, true);
  if (!walk.visit(value, 0)) return null;
  return { bytes: Buffer.from(line.subarray(span.start, span.end)), value, nodes: walk.nodes, deepest: walk.deepest };
}

/** The deepest container of the members, relative to the line (-1: none). */
export function membersDeepest(members: Iterable<KeptMember>): number {
  let deepest = -1;
  for (const member of members) if (member.deepest >= 0) deepest = Math.max(deepest, MEMBER_DEPTH + member.deepest);
  return deepest;
}

/**
 * The line's text with the history list's bytes `[listStart, listEnd)` written as `list` and each
 * member's value as `0` (spans in line order, the list's among them): what is left to parse.
 */
export function textAround(line: Buffer, listStart: number, listEnd: number, spans: readonly MemberSpan[], list = '[]'): string {
  let text = '';
  let cursor = 0;
  let listDone = false;
  for (const span of spans) {
    if (!listDone && span.start > listStart) {
      text += `${line.toString('utf8', cursor, listStart)}${list}`;
      cursor = listEnd;
      listDone = true;
    }
    text += `${line.toString('utf8', cursor, span.start)}0`;
    cursor = span.end;
  }
  if (!listDone) {
    text += `${line.toString('utf8', cursor, listStart)}${list}`;
    cursor = listEnd;
  }
  return text + line.toString('utf8', cursor);
}
