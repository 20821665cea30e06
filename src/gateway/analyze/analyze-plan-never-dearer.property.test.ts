import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { words } from '../../cache/test-support/fixtures.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { analyzeCapture } from './analyze-capture.js';
import type { CapturedRequest } from './read-capture.js';

type JsonRecord = Record<string, unknown>;

const T0 = Date.UTC(2026, 10, 28, 10, 0, 0);
const MINUTE = 60_000;

/** One request of a generated agent conversation: how many tool steps its turn takes, the pause before it, its marker TTL. */
interface Turn {
  steps: number;
  /** Parallel tool results per step (many blocks reach past the 20-block lookback). */
  parallel: number;
  pauseMinutes: number;
  /** The client's TTL for this turn's last request (Cachet's own sessions write 1 hour before a user's pause). */
  long: boolean;
  resultWords: number;
}

const turn: fc.Arbitrary<Turn> = fc.record({
  steps: fc.integer({ min: 0, max: 3 }),
  parallel: fc.integer({ min: 1, max: 12 }),
  pauseMinutes: fc.constantFrom(0.5, 2, 4, 7, 20, 45, 70),
  long: fc.boolean(),
  resultWords: fc.integer({ min: 20, max: 600 }),
});

/**
 * The bodies of a client that places good markers, as Cachet's sessions do: the end of the system
 * prompt and the last block of the history, 1 hour on a turn's last request when it chose so.
 */
function conversation(turns: Turn[]): CapturedRequest[] {
  const system = `You are a careful coding agent. ${words(1500, 'rule')}`;
  const tools = [{ name: 'read_file', description: 'Read a file.', input_schema: { type: 'object' } }];
  const messages: JsonRecord[] = [];
  const requests: CapturedRequest[] = [];
  let at = T0;
  const send = (long: boolean) => {
    const marker = long ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
    const history = structuredClone(messages) as Array<{ content: JsonRecord[] }>;
    const last = history.at(-1)!.content;
    last[last.length - 1] = { ...last.at(-1)!, cache_control: marker };
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      tools,
      system: [{ type: 'text', text: system, cache_control: marker }],
      messages: history,
    };
    requests.push({ at, body, conversation: 'c' });
  };
  turns.forEach((drawn, index) => {
    at += drawn.pauseMinutes * MINUTE;
    messages.push({ role: 'user', content: [{ type: 'text', text: `task ${index}: ${words(60, `u${index}`)}` }] });
    for (let step = 0; step < drawn.steps; step++) {
      send(false);
      const ids = Array.from({ length: drawn.parallel }, (_, call) => `call-${index}-${step}-${call}`);
      messages.push({
        role: 'assistant',
        content: ids.map((id) => ({ type: 'tool_use', id, name: 'read_file', input: { path: id } })),
      });
      messages.push({
        role: 'user',
        content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: words(drawn.resultWords, id) })),
      });
      at += 5_000;
    }
    send(drawn.long);
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `done ${index}: ${words(40, `a${index}`)}` }] });
  });
  return requests;
}

describe("cachet analyze on a pass-through capture of a client that marks well: Cachet's plan is never dearer", () => {
  it('plans at most what the client paid, over generated conversations (pauses, 1-hour turn ends, parallel tool calls)', () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 8 }), (turns) => {
        const [analyzed] = analyzeCapture(conversation(turns)).conversations;
        expect(analyzed!.plannedCostUsd).toBeLessThanOrEqual(analyzed!.costUsd + 1e-9);
      }),
      {
        numRuns: propertyRuns(40),
        examples: [
          // A 1-hour turn end, then a pause the 5-minute entries do not outlive: the plan keeps the client's hour.
          [
            [
              { steps: 1, parallel: 1, pauseMinutes: 0.5, long: true, resultWords: 200 },
              { steps: 0, parallel: 1, pauseMinutes: 20, long: false, resultWords: 20 },
            ],
          ],
        ],
      },
    );
  });
});
