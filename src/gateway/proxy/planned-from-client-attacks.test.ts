import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnthropicCacheModel } from '../../cache/models/anthropic-cache-model.js';
import { BlockCoreMemo } from '../../cache/wire/block-core-memo.js';
import { type MovedMarkersHistory, normalizedWithMovedMarkers } from '../../cache/wire/moved-markers.js';
import { normalizeWireBody } from '../../cache/wire/normalize-wire-body.js';
import type { NormalizedWireBody } from '../../cache/wire/wire-unit.js';
import { deepFreeze } from '../../model/freeze.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { planCacheFields } from './plan-cache-fields.js';

/**
 * Attacks on judging `--plan`'s body from the client body's normalisation (a25cdac:
 * `normalizedWithMovedMarkers` + `JudgeContext.normalized`), with the plans `planCacheFields`
 * really makes, over hostile conversations: the client's marker moved, 1-hour markers, markers on
 * thinking and empty text blocks, deferred tools and tool references, a system prompt switching
 * between a string and blocks, automatic caching, edits, rewinds, repeats, the clock past both
 * lifetimes. Each body is parsed fresh from its JSON text, its history deep-frozen and shared
 * with the last body's where it repeats it (as the proxy's reader does), or left unfrozen.
 *
 * Reference: the planned body's JSON copy, normalised and judged with nothing shared. Checked:
 * every derived normalisation prints as the fresh one, and every verdict of a planned model fed the
 * derived normalisations (the proxy's pair: a fork of the client model with a block memo that
 * refers to the client's) equals the plain planned model's.
 */

type JsonRecord = Record<string, unknown>;
const FIVE = { type: 'ephemeral' };
const HOUR = { type: 'ephemeral', ttl: '1h' };

interface Conversation {
  messages: string[];
  marker: number;
  system: number;
  automatic: boolean;
}

function messageJson(index: number, kind: number, tag: string): string {
  const role = index % 2 === 0 ? 'user' : 'assistant';
  const text = `${tag} ${'word '.repeat(30 + (kind % 5) * 40)}`;
  if (role === 'assistant') {
    if (kind % 6 === 0)
      return `{"role":"assistant","content":[{"type":"thinking","thinking":"hmm ${tag}","signature":"s"},{"type":"text","text":"${text}"}]}`;
    if (kind % 6 === 1)
      return `{"role":"assistant","content":[{"type":"tool_use","id":"t${index}","name":"read","input":{"path":"${tag}"}}]}`;
    return `{"role":"assistant","content":[{"type":"text","text":"${text}"},{"type":"text","text":""}]}`;
  }
  if (kind % 4 === 0) return `{"role":"user","content":"${text}"}`;
  if (kind % 4 === 1) {
    return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t${index - 1}","content":[{"type":"tool_reference","tool_name":"late"}]},{"type":"text","text":"${text}"}]}`;
  }
  return `{"role":"user","content":[{"type":"text","text":"${text}"}]}`;
}

/** The client's marker on its newest message's last block (or a 1-hour one two messages back, or none). */
function withClientMarker(messages: string[], marker: number): string[] {
  const out = [...messages];
  const mark = (at: number, value: JsonRecord) => {
    const message = JSON.parse(out[at]!) as JsonRecord;
    if (typeof message.content === 'string') message.content = [{ type: 'text', text: message.content }];
    const content = message.content as JsonRecord[];
    content[content.length - 1]!.cache_control = value;
    out[at] = JSON.stringify(message);
  };
  if (marker % 3 !== 2 && out.length > 0) mark(out.length - 1, FIVE);
  if (marker % 3 === 1 && out.length > 2) mark(out.length - 3, HOUR);
  return out;
}

function bodyText(conversation: Conversation): string {
  const system =
    conversation.system % 3 === 0
      ? '"be careful and brief"'
      : `[{"type":"text","text":"rules ${'rule '.repeat(1500)}"${conversation.system % 3 === 2 ? ',"cache_control":{"type":"ephemeral","ttl":"1h"}' : ''}}]`;
  return `{"model":"claude-sonnet-4-5","max_tokens":100,${conversation.automatic ? '"cache_control":{"type":"ephemeral"},' : ''}"tools":[{"name":"read","input_schema":{"type":"object"}},{"name":"late","defer_loading":true,"input_schema":{"type":"object"}}],"system":${system},"messages":[${withClientMarker(conversation.messages, conversation.marker).join(',')}]}`;
}

/** Parsed as the proxy's reader does: the history items deep-frozen, and the same object as last time for a repeated item. */
function parsedLikeTheProxy(text: string, previous: unknown[] | null, frozen: boolean): JsonRecord {
  const body = JSON.parse(text) as JsonRecord;
  if (!frozen) return body;
  const messages = body.messages as unknown[];
  body.messages = messages.map((message, index) => {
    const before = previous?.[index];
    return before !== undefined && JSON.stringify(before) === JSON.stringify(message) ? before : deepFreeze(message);
  });
  return body;
}

type Step = [number, number];
const GAPS_MS = [1_000, 30_000, 6 * 60_000, 61 * 60_000];

/** Plain JSON of a normalisation, key order included. */
const printed = (body: NormalizedWireBody) => JSON.stringify({ ...body, units: [...body.units] });

function run(steps: readonly Step[], frozen: boolean, linked: boolean): { derivedAnswers: number } {
  // One history per planned model, as the proxy keeps it (bf051d8): each derived body linked to the last one.
  const history: MovedMarkersHistory | undefined = linked ? {} : undefined;
  const conversation: Conversation = { messages: [messageJson(0, 2, 'open')], marker: 0, system: 1, automatic: false };
  const clientBlocks = new BlockCoreMemo();
  const client = createAnthropicCacheModel({ blockMemo: clientBlocks });
  const planned = client.fork!({ blockMemo: new BlockCoreMemo(clientBlocks) });
  const plainPlanned = createAnthropicCacheModel();
  let previous: unknown[] | null = null;
  let previousBreakpointPosition: number | null = null;
  let at = Date.UTC(2026, 10, 28);
  let derivedAnswers = 0;
  steps.forEach(([kind, value], index) => {
    const { messages } = conversation;
    if (kind <= 2)
      for (let count = 0; count <= value % 3; count++)
        messages.push(messageJson(messages.length, value + count, `s${index}.${count}`));
    else if (kind === 3) messages.length = Math.max(1, messages.length - 1 - (value % messages.length));
    else if (kind === 4 && messages.length > 1)
      messages[1 + (value % (messages.length - 1))] = messageJson(1 + (value % (messages.length - 1)), value, `s${index}.edit`);
    else if (kind === 5) conversation.marker++;
    else if (kind === 6) conversation.system++;
    else if (kind === 7) conversation.automatic = !conversation.automatic;
    else if (kind === 8) at += GAPS_MS[value % GAPS_MS.length]!;
    at += 1_000;
    const clientBody = parsedLikeTheProxy(bodyText(conversation), previous, frozen);
    previous = clientBody.messages as unknown[];
    const plan = planCacheFields(
      'anthropic',
      clientBody,
      { conversationId: 'c', previousResponseId: index > 0 ? `msg_${index}` : null, previousBreakpointPosition },
      {},
    );
    previousBreakpointPosition = plan.lastBreakpointPosition;
    let normalized: NormalizedWireBody | null = null;
    client.judge(clientBody, { at, onNormalized: (body) => (normalized = body) });
    const derived = normalized ? normalizedWithMovedMarkers(normalized, clientBody, plan.body, history) : null;
    const copy = JSON.parse(JSON.stringify(plan.body)) as JsonRecord;
    if (derived) {
      derivedAnswers++;
      expect(printed(derived)).toBe(printed(normalizeWireBody(copy, 'anthropic')));
    }
    const verdict = planned.judge(plan.body, { at, ...(derived ? { normalized: derived } : {}) });
    expect(JSON.stringify(verdict)).toBe(JSON.stringify(plainPlanned.judge(copy, { at })));
  });
  return { derivedAnswers };
}

const EXAMPLE: Step[] = [
  [0, 0],
  [0, 1],
  [5, 0],
  [0, 2],
  [6, 0],
  [0, 3],
  [8, 2],
  [0, 4],
  [4, 1],
  [7, 0],
  [0, 5],
  [3, 1],
  [5, 0],
  [0, 0],
  [9, 0],
  [8, 3],
  [0, 1],
];

describe('--plan judged from the client body normalisation, with the plans planCacheFields makes', () => {
  it.each([
    ['history deep-frozen and shared as the proxy reads it', true, false],
    ['history not frozen', false, false],
    ['deep-frozen, each derived body linked to the last (MovedMarkersHistory)', true, true],
    ['not frozen, linked', false, true],
  ])('%s: each derived normalisation is the fresh one, each verdict the plain model’s', (_name, frozen, linked) => {
    expect(run(EXAMPLE, frozen, linked).derivedAnswers).toBeGreaterThanOrEqual(3);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: 9 }), fc.nat({ max: 50 })), { minLength: 1, maxLength: 25 }), (steps) => {
        run(steps, frozen, linked);
      }),
      { numRuns: propertyRuns(20) },
    );
  });
});
