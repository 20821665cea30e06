import { describe, expect, it } from 'vitest';
import { ANTHROPIC_TAIL_PRICING } from '../../session/choose-tail-scope.js';
import { createTurnTailState, openerKeys, planTurnTail, type TailItem } from './turn-tail.js';

const item = (text: string, scope: TailItem['scope'], key = text): TailItem => ({ text, scope, key });
const plan = (state: ReturnType<typeof createTurnTailState>, opener: string, step: number, items: TailItem[]) =>
  planTurnTail({ state, opener, step, items, countTokens: (text) => text.length, pricing: ANTHROPIC_TAIL_PRICING });

describe('planTurnTail', () => {
  it('declared turn: persisted at the turn’s first call, left out at its later steps, kept for every later turn', () => {
    const state = createTurnTailState();
    const first = plan(state, 'u1', 0, [item('clock 1', 'turn', 'clock'), item('recall', 'request')]);
    expect(first.requestTexts).toEqual(['recall']);
    expect(first.persisted.get('u1')).toEqual(['clock 1']);
    const step = plan(state, 'u1', 1, [item('clock 1b', 'turn', 'clock'), item('recall', 'request')]);
    expect(step.requestTexts).toEqual(['recall']);
    expect(step.persisted.get('u1')).toEqual(['clock 1']); // the turn's version, byte for byte
    const next = plan(state, 'u2', 0, [item('clock 2', 'turn', 'clock')]);
    expect([...next.persisted.entries()]).toEqual([
      ['u1', ['clock 1']],
      ['u2', ['clock 2']],
    ]);
  });

  it('auto: request scope while the conversation has shown no tool loop, turn scope once turns take several steps', () => {
    const state = createTurnTailState();
    const text = 'x'.repeat(400);
    expect(plan(state, 'u1', 0, [item(text, 'auto')]).decisions[0]!.scope).toBe('request');
    for (let step = 1; step < 4; step++) plan(state, 'u1', step, [item(text, 'auto')]);
    const second = plan(state, 'u2', 0, [item(text, 'auto')]);
    expect(second.decisions[0]!.scope).toBe('turn');
    expect(second.decisions[0]!.reason).toMatch(/4\.0 expected steps/);
  });

  it('a turn entered after its first call sends everything as request tail', () => {
    const state = createTurnTailState();
    const joined = plan(state, 'u1', 2, [item('clock', 'turn')]);
    expect(joined.requestTexts).toEqual(['clock']);
    expect(joined.persisted.size).toBe(0);
  });

  it('openerKeys keeps two equal user messages apart', () => {
    expect(openerKeys(['a', 'b', 'a'])).toEqual(['a#0', 'b#0', 'a#1']);
  });
});
