import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { runCodingAgentOnAiSdk } from '../ai-sdk/test-support/run-coding-agent.js';
import { runCodingAgentOnLangChain } from '../langchain/test-support/run-coding-agent.js';
import { runCodingAgentOnPi } from '../pi/test-support/run-coding-agent.js';
import { CODING_AGENT_PERSONA, clockText, memoryRecallText } from '../test-support/coding-agent-script.js';
import { runFigures, startCodingAgentServer } from '../test-support/coding-agent-server.js';
import { hookReporter } from './contained-hooks.js';
import { createVolatileState, moveVolatileSystem, volatileOptionOf } from './volatile-auto.js';

type Body = { system?: Array<{ text: string }>; messages: Array<{ role: string; content: Array<{ text?: string }> }> };

const RUNS = {
  'ai-sdk': (origin: string, bus: EventBus) => runCodingAgentOnAiSdk(origin, 'cachet', { middleware: { volatile: 'auto', bus } }),
  langchain: (origin: string, bus: EventBus) =>
    runCodingAgentOnLangChain(origin, 'cachet', { middleware: { volatile: 'auto', bus } }),
  pi: (origin: string, bus: EventBus) => runCodingAgentOnPi(origin, 'cachet', { volatile: 'auto', bus }),
};

describe.each(Object.entries(RUNS))("volatile: 'auto' on a dynamic system prompt (%s, real package)", (_name, run) => {
  it('sends the persona byte-stable, the clock and recall turn-scoped in each turn’s user message, and says so', async () => {
    const server = await startCodingAgentServer();
    const bus = new EventBus();
    const events: Array<CachetEvent<'volatile.moved'>> = [];
    bus.on('volatile.moved', (event) => events.push(event));
    try {
      await run(server.origin, bus);
    } finally {
      await server.close();
    }
    const bodies = server.bodies as unknown as Body[];
    for (const body of bodies) expect(body.system?.map((block) => block.text).join('')).toBe(CODING_AGENT_PERSONA);
    const last = bodies.at(-1)!;
    const sent = JSON.stringify(last.messages);
    for (let turn = 0; turn < 6; turn++) {
      expect(sent).toContain(JSON.stringify(clockText(turn)));
      expect(sent).toContain(JSON.stringify(memoryRecallText(turn)));
    }
    expect(events.map((event) => event.payload.turn)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events[0]!.payload.moved.map((moved) => moved.cause)).toEqual(['clock', 'memory-recall']);
    expect(events[0]!.payload.savedTokens).toBe(0);
    expect(events[1]!.payload.savedTokens).toBeGreaterThan(1000);
    expect(runFigures(server.verdicts, server.bodies).rejected).toBe(0);
  });
});

describe('moveVolatileSystem on bad input', () => {
  it('a system text that is not a string is reported and nothing moves', () => {
    const errors: Error[] = [];
    const reporter = hookReporter('test', { onError: (error) => errors.push(error) });
    const move = moveVolatileSystem({
      state: createVolatileState(),
      texts: ['Current time: 2026-11-27T10:00:00Z', 42],
      counter: anthropicEstimator(),
      historyTokens: () => 0,
      reporter,
      conversationId: 'c',
    });
    expect(move).toBeNull();
    expect(errors[0]).toBeInstanceOf(ValidationError);
    expect(errors[0]!.message).toMatch(/system\[1\]/);
  });

  it('an unknown option value is a ValidationError at construction', () => {
    expect(() => volatileOptionOf('always')).toThrow(ValidationError);
    expect(volatileOptionOf(undefined)).toBe('off');
  });
});
