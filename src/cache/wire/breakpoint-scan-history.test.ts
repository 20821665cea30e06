import { describe, expect, it } from 'vitest';
import { anthropicBreakpoints, type BreakpointScanHistory } from './cache-rules.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

type Block = Readonly<Record<string, unknown>>;
const frozenContent = (...blocks: Record<string, unknown>[]): readonly Block[] =>
  Object.freeze(blocks.map((block) => Object.freeze(block)));
const copyOf = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * A conversation as a client sends it: a frozen history (message 3 keeps a 1-hour marker of its
 * own), the newest message sent as a fresh copy with a 5-minute marker that moves on next turn.
 */
function conversation(name: string, turns: number): Array<Record<string, unknown>> {
  const history = Array.from({ length: turns }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: frozenContent({
      type: 'text',
      text: `${name} message ${index}`,
      ...(index === 3 ? { cache_control: { type: 'ephemeral', ttl: '1h' } } : {}),
    }),
  }));
  return Array.from({ length: turns }, (_, turn) => ({
    model: 'claude-sonnet-4-5',
    max_tokens: 10,
    system: [{ type: 'text', text: `${name} system`, cache_control: { type: 'ephemeral', ttl: '1h' } }],
    messages: [
      ...history.slice(0, turn),
      {
        role: turn % 2 === 0 ? 'user' : 'assistant',
        content: [{ type: 'text', text: `${name} message ${turn}`, cache_control: { type: 'ephemeral' } }],
      },
    ],
  }));
}

describe('anthropicBreakpoints with a per-conversation scan history', () => {
  it('gives each body of two interleaved conversations the marks of a fresh scan of its unshared copy', () => {
    const first = conversation('a', 40);
    const second = conversation('b', 40);
    const histories: [BreakpointScanHistory, BreakpointScanHistory] = [{}, {}];
    let carried = 0;
    for (let turn = 0; turn < 40; turn++) {
      for (const [index, bodies] of [first, second].entries()) {
        const history = histories[index]!;
        const lastUnits = history.last?.units;
        const normalized = normalizeAnthropicBody(bodies[turn]!);
        const marks = anthropicBreakpoints(normalized, history);
        expect(marks).toEqual(anthropicBreakpoints(normalizeAnthropicBody(copyOf(bodies[turn]!))));
        // The history now holds this conversation's body, not the other's scanned in between.
        expect(history.last?.units).not.toBe(lastUnits);
        if (turn > 4 && marks.some((mark) => mark.ttl === '1h' && mark.index > 5)) carried++;
      }
    }
    // Message 3's marker sits in the shared history of every later body: its mark comes from the scan history.
    expect(carried).toBe(2 * 35);
  });
});
