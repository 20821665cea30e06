import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../model/freeze.js';
import type { JsonRecord } from '../wire/json-helpers.js';
import { type MovedMarkersHistory, normalizedWithMovedMarkers } from '../wire/moved-markers.js';
import type { NormalizedWireBody } from '../wire/wire-unit.js';
import { createAnthropicCacheModel } from './anthropic-cache-model.js';

const FIVE = { type: 'ephemeral' };
const HOUR = { type: 'ephemeral', ttl: '1h' };

/** A conversation's turns: frozen history shared between bodies, the client's marker on its newest message. */
function turns(count: number): JsonRecord[] {
  const history: unknown[] = [];
  const bodies: JsonRecord[] = [];
  for (let turn = 0; turn < count; turn++) {
    const text = `turn ${turn} ${'words '.repeat(200 + turn * 7)}`;
    history.push(deepFreeze({ role: turn % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] }));
    const last = history.length - 1;
    const messages = history.slice();
    messages[last] = deepFreeze({
      role: turn % 2 === 0 ? 'user' : 'assistant',
      content: [{ type: 'text', text, cache_control: FIVE }],
    });
    bodies.push({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system: deepFreeze([{ type: 'text', text: 'sys '.repeat(900) }]),
      messages,
    });
  }
  return bodies;
}

/** The plan of each turn: the client's markers off, the system marked, the newest message and (every third turn) the one two back, one of them for an hour. */
function planOf(body: JsonRecord, turn: number): JsonRecord {
  const messages = [...(body.messages as JsonRecord[])];
  const mark = (index: number, marker: JsonRecord | null) => {
    const content = (messages[index]!.content as JsonRecord[]).map((each) => {
      const { cache_control: _drop, ...rest } = each;
      return marker ? { ...rest, cache_control: marker } : rest;
    });
    messages[index] = { ...messages[index], content };
  };
  mark(messages.length - 1, turn % 5 === 4 ? HOUR : FIVE);
  if (turn % 3 === 2 && messages.length > 2) mark(messages.length - 3, turn % 2 === 0 ? HOUR : FIVE);
  const system = (body.system as JsonRecord[]).map((each) => ({ ...each, cache_control: FIVE }));
  return { ...body, system, messages, diagnostics: { previous_message_id: null } };
}

describe('a planned model judging from the client body normalisation', () => {
  it('gives the verdicts of a planned model that normalises each planned body itself', () => {
    const client = createAnthropicCacheModel({ reuseEqualBlocks: true });
    const derivedSide = createAnthropicCacheModel({ reuseEqualBlocks: true });
    const plainSide = createAnthropicCacheModel({ reuseEqualBlocks: true });
    let answered = 0;
    const history: MovedMarkersHistory = {};
    turns(40).forEach((body, turn) => {
      let normalized: NormalizedWireBody | null = null;
      const at = turn * 40_000 + (turn % 7 === 6 ? 400_000 : 0);
      client.judge(body, { at, onNormalized: (value) => (normalized = value) });
      const plan = planOf(body, turn);
      const derived = normalizedWithMovedMarkers(normalized!, body, plan, history);
      if (derived) answered++;
      const fromClient = derivedSide.judge(plan, { at, ...(derived ? { normalized: derived } : {}) });
      expect(fromClient).toEqual(plainSide.judge(JSON.parse(JSON.stringify(plan)), { at }));
    });
    expect(answered).toBe(40);
  });
});
