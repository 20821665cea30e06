import { describe, expect, it } from 'vitest';
import { costOf } from '../../cache/cost.js';
import { createCacheModel } from '../../cache/models/create-cache-model.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { planCacheFields } from '../proxy/plan-cache-fields.js';
import { analyzeCapture } from './analyze-capture.js';
import { planKeepsClientMarkers } from './planned-lockstep.js';
import type { CapturedRequest } from './read-capture.js';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const MINUTE = 60_000;
const persona = 'You follow the repository conventions and explain each change you make. '.repeat(60);

type Marks = { system?: boolean; last?: boolean | '1h'; tools?: boolean; extraMessages?: number };

/** A growing Anthropic conversation; `marks` says where the client puts its markers. */
function body(turn: number, marks: Marks = { system: true, last: true }): Record<string, unknown> {
  const count = turn * 2 + 1 + (marks.extraMessages ?? 0);
  const messages = Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [
      { type: 'text', text: `m${index}: run the failing test and fix what it shows ${'again '.repeat(index % 7)}` },
    ] as Array<Record<string, unknown>>,
  }));
  const last = messages.at(-1)!.content[0]!;
  if (marks.last) last.cache_control = marks.last === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const tool = { name: 'read', description: 'Read a file', input_schema: { type: 'object' } };
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    tools: [marks.tools ? { ...tool, cache_control: { type: 'ephemeral' } } : tool],
    system: [{ type: 'text', text: persona, ...(marks.system ? { cache_control: { type: 'ephemeral' } } : {}) }],
    messages,
  };
}

const planOf = (request: Record<string, unknown>, previous: number | null = null) =>
  planCacheFields('anthropic', request, { conversationId: 'c', previousResponseId: null, previousBreakpointPosition: previous });

/** The planned figures as the analyzer computed them before lockstep: every planned body judged on its own model. */
function plannedByHand(requests: readonly CapturedRequest[], conversation: string) {
  const model = createCacheModel('anthropic', { anthropic: { counter: anthropicEstimator() } });
  let previous: number | null = null;
  let cost = 0;
  let read = 0;
  let input = 0;
  for (const request of requests.filter((each) => each.conversation === conversation)) {
    const plan = planCacheFields('anthropic', request.body, {
      conversationId: conversation,
      previousResponseId: null,
      previousBreakpointPosition: previous,
    });
    previous = plan.lastBreakpointPosition;
    const verdict = model.judge(plan.body, { at: request.at });
    cost += costOf(verdict.usage, 'anthropic', String(request.body.model)).costUsd;
    read += verdict.cacheReadTokens;
    input += verdict.inputTokens;
  }
  return { plannedCostUsd: cost, plannedReadShare: input === 0 ? 0 : read / input };
}

describe('planKeepsClientMarkers', () => {
  it('holds when the client marks exactly the blocks the plan marks, with its TTL', () => {
    const withTools = body(3, { system: true, last: true, tools: true });
    expect(planKeepsClientMarkers(withTools, planOf(withTools))).toBe(true);
    const marked = { ...withTools, system: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '5m' } }] };
    expect(planKeepsClientMarkers(marked, planOf(marked))).toBe(true);
  });

  it('fails on a missing, moved, longer or extra marker, an automatic breakpoint, or string contents', () => {
    const cases = {
      'no tools marker': body(3),
      'no marker on the last message': body(3, { system: true, tools: true }),
      '1-hour marker': body(3, { system: true, last: '1h', tools: true }),
      'automatic breakpoint': { ...body(3, { system: true, last: true, tools: true }), cache_control: { type: 'ephemeral' } },
      'string system prompt': { ...body(3, { last: true }), tools: [], system: 'You are terse.' },
      'string message': { ...body(0, { system: true }), tools: [], messages: [{ role: 'user', content: 'hi' }] },
    };
    for (const [name, request] of Object.entries(cases)) {
      expect(planKeepsClientMarkers(request, planOf(request)), name).toBe(false);
    }
    // Five client markers: the plan keeps four.
    const five = body(3, { system: true, last: true, tools: true });
    for (const message of (five.messages as Array<{ content: Array<Record<string, unknown>> }>).slice(0, 2)) {
      message.content[0]!.cache_control = { type: 'ephemeral' };
    }
    expect(planKeepsClientMarkers(five, planOf(five))).toBe(false);
  });

  it('ignores a marker value the normaliser reads as none, on a block the plan leaves unmarked', () => {
    const request = body(3, { system: true, last: true, tools: true });
    const first = (request.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]!.content[0]!;
    first.cache_control = { type: 'persistent' };
    expect(planKeepsClientMarkers(request, planOf(request))).toBe(true);
  });
});

describe('the analyzer in lockstep', () => {
  it('gives the planned figures of a planned model judging every body, across lockstep, forks and conversations that never keep it', () => {
    const lines: CapturedRequest[] = [];
    const plan = { system: true, last: true, tools: true };
    for (let turn = 0; turn < 12; turn++) {
      // In lockstep until turn 6 drops the last marker; a 7-minute gap at turn 4 expires 5-minute entries.
      const at = T0 + turn * MINUTE + (turn >= 4 ? 7 * MINUTE : 0);
      lines.push({ at, conversation: 'drops', body: body(turn, turn === 6 ? { system: true, tools: true } : plan) });
      // In lockstep until 30 messages arrive at once at turn 5: the plan adds a lookback guard.
      lines.push({ at: at + 1, conversation: 'jumps', body: body(turn, { ...plan, extraMessages: turn >= 5 ? 30 : 0 }) });
      // Always in lockstep.
      lines.push({ at: at + 2, conversation: 'keeps', body: body(turn, plan) });
      // Never: no tools marker.
      lines.push({ at: at + 3, conversation: 'never', body: body(turn) });
    }
    const inLockstep = (conversation: string) => {
      let previous: number | null = null;
      return lines
        .filter((line) => line.conversation === conversation)
        .map((line) => {
          const planned = planOf(line.body, previous);
          previous = planned.lastBreakpointPosition;
          return planKeepsClientMarkers(line.body, planned);
        });
    };
    // The capture takes each path: lockstep then a fork at the named turn, lockstep throughout, none.
    expect(inLockstep('drops').indexOf(false)).toBe(6);
    expect(inLockstep('jumps').indexOf(false)).toBe(5);
    expect(inLockstep('keeps').every(Boolean)).toBe(true);
    expect(inLockstep('never').some(Boolean)).toBe(false);
    const analysis = analyzeCapture(lines);
    for (const conversation of analysis.conversations) {
      expect(
        { plannedCostUsd: conversation.plannedCostUsd, plannedReadShare: conversation.plannedReadShare },
        conversation.id,
      ).toEqual(plannedByHand(lines, conversation.id));
    }
    expect(analysis.conversations.map((conversation) => conversation.id)).toEqual(['drops', 'jumps', 'keeps', 'never']);
  });
});
