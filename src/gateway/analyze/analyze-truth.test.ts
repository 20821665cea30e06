import { describe, expect, it } from 'vitest';
import { judgeSequence } from '../../cache/models/cache-verdict.js';
import { createCacheModel } from '../../cache/models/create-cache-model.js';
import { words } from '../../cache/test-support/fixtures.js';
import { planCacheFields } from '../proxy/plan-cache-fields.js';
import { anthropicTurn as typedTurn } from '../test-support/sessions.js';
import { analyzeCapture } from './analyze-capture.js';

/** The shared fixture as the plain JSON record a capture line holds. */
const anthropicTurn = (turn: number, options: Parameters<typeof typedTurn>[1] = {}) =>
  typedTurn(turn, options) as unknown as Record<string, unknown> & {
    messages: Array<{ content: Array<Record<string, unknown>> }>;
  };

const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const persona = `You are a careful coding agent. ${words(5000, 'rule')}`;

/** Turn `turn` of a client that sends a request-scoped tail (clock and recalled memory) after its last marker. */
function withRequestTail(turn: number, tailPlacement: 'message' | 'system' = 'message'): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [];
  for (let index = 0; index < turn; index++) {
    messages.push({ role: 'user', content: [{ type: 'text', text: `request ${index}: ${words(200, `u${index}`)}` }] });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${index}: ${words(300, `a${index}`)}` }] });
  }
  const tail = { type: 'text', text: `Now: 10:${String(turn).padStart(2, '0')}. Recalled: ${words(400, `m${turn}`)}` };
  const question = { type: 'text', text: `request ${turn}: ${words(200, `u${turn}`)}`, cache_control: { type: 'ephemeral' } };
  messages.push({ role: 'user', content: tailPlacement === 'message' ? [question, tail] : [question] });
  const system = [
    { type: 'text', text: persona, cache_control: { type: 'ephemeral' } },
    ...(tailPlacement === 'system' ? [tail] : []),
  ];
  return { model: 'claude-sonnet-5', max_tokens: 1024, system, messages };
}

describe('cachet analyze tells the truth (#22 item 6)', () => {
  it.each(['message', 'system'] as const)(
    "keeps a capture's request-scoped tail (in the %s) out of Cachet's plan: the plan is never worse than the capture",
    (placement) => {
      const capture = Array.from({ length: 12 }, (_, turn) => ({
        at: T0 + turn * 30_000,
        conversation: 'agent',
        body: withRequestTail(turn, placement),
      }));
      const [conversation] = analyzeCapture(capture).conversations;
      expect(conversation!.readShare).toBeGreaterThan(0.5);
      expect(conversation!.plannedReadShare).toBeGreaterThanOrEqual(conversation!.readShare - 1e-9);
      expect(conversation!.plannedCostUsd).toBeLessThanOrEqual(conversation!.costUsd + 1e-9);
    },
  );

  it("places the plan's history marker where the client's tail starts, and at the end when there is no tail", () => {
    const context = { conversationId: 'c', previousResponseId: null, previousBreakpointPosition: null };
    const tailed = planCacheFields('anthropic', withRequestTail(3), context);
    expect(tailed.breakpoints).toEqual(['system[0]', 'messages[6].content[0]']);
    const plain = planCacheFields('anthropic', anthropicTurn(3, { marked: false }), context);
    expect(plain.breakpoints.at(-1)).toBe('messages[4].content[0]');
    // A client marker on an earlier message is not a tail: the plan still marks the end.
    const early = anthropicTurn(3, { marked: false });
    early.messages[0]!.content[0]!.cache_control = { type: 'ephemeral' };
    expect(planCacheFields('anthropic', early, context).breakpoints.at(-1)).toBe('messages[4].content[0]');
  });

  it('names no-breakpoint where the earlier request wrote no breakpoint over the shared prefix (markerless, or system only)', () => {
    const systemOnly = (turn: number) => {
      const body = anthropicTurn(turn);
      for (const message of body.messages) {
        for (const block of message.content) delete block.cache_control;
      }
      return body;
    };
    for (const make of [(turn: number) => anthropicTurn(turn, { marked: false }), systemOnly]) {
      const bodies = [1, 2, 3, 4].map(make);
      const verdicts = judgeSequence(
        createCacheModel('anthropic'),
        bodies.map((body, index) => ({ body, at: T0 + index * 30_000 })),
      );
      expect(verdicts.slice(1).map((verdict) => verdict.missCause)).toEqual(['no-breakpoint', 'no-breakpoint', 'no-breakpoint']);
      const analysis = analyzeCapture(bodies.map((body, index) => ({ at: T0 + index * 30_000, body })));
      expect(analysis.requests.map((request) => request.missCause)).toEqual([
        null,
        'no-breakpoint',
        'no-breakpoint',
        'no-breakpoint',
      ]);
      expect(analysis.requests.slice(1).every((request) => request.missedTokens > 0)).toBe(true);
      expect(analysis.conversations[0]!.topCauses[0]!.cause).toBe('no-breakpoint');
    }
  });

  it('says nothing when every request reads what the previous one wrote', () => {
    const bodies = [1, 2, 3, 4].map((turn) => anthropicTurn(turn));
    const analysis = analyzeCapture(bodies.map((body, index) => ({ at: T0 + index * 30_000, body })));
    expect(analysis.requests.map((request) => request.missCause)).toEqual([null, null, null, null]);
  });
});
