import { describe, expect, it } from 'vitest';
import { clockText, scriptedReplies } from '../test-support/coding-agent-script.js';
import { runFigures, startCodingAgentServer } from '../test-support/coding-agent-server.js';
import type { CachetCallInfo } from './cachet-middleware.js';
import { runCodingAgentOnAiSdk } from './test-support/run-coding-agent.js';

type Body = { messages: Array<{ role: string; content: Array<{ type: string; text?: string }> }> };

async function run(tailScope: 'auto' | 'turn' | 'request') {
  const server = await startCodingAgentServer();
  const calls: CachetCallInfo[] = [];
  try {
    await runCodingAgentOnAiSdk(server.origin, 'cachet-tail', {
      tailScope,
      middleware: { onRequest: (info) => calls.push(info) },
    });
    return { calls, bodies: server.bodies as unknown as Body[], figures: runFigures(server.verdicts, server.bodies) };
  } finally {
    await server.close();
  }
}

const inputCost = (figures: ReturnType<typeof runFigures>) =>
  figures.uncachedTokens + 1.25 * figures.cacheWriteTokens + 0.1 * figures.cacheReadTokens;

describe('cachetMiddleware turn-scoped tail (scripted coding agent, real @ai-sdk/anthropic)', () => {
  it('infers turn and step from the call: a user message starts a turn, tool results continue it', async () => {
    const { calls } = await run('request');
    expect(calls).toHaveLength(scriptedReplies().length);
    expect(calls[0]).toMatchObject({ turn: 1, step: 0 });
    expect(calls[1]).toMatchObject({ turn: 1, step: 1 });
    const firstOfTurns = calls.filter((call) => call.step === 0).map((call) => call.turn);
    expect(firstOfTurns).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('turn scope writes the clock once into the turn’s user message and keeps it there byte for byte', async () => {
    const { bodies, calls } = await run('turn');
    const clock = clockText(0);
    for (const body of bodies) {
      const firstUser = body.messages.find((message) => message.role === 'user')!;
      expect(firstUser.content.map((block) => block.text)).toContain(clock);
      // Never re-sent as a request tail at the end of a later call.
      const last = body.messages.at(-1)!;
      if (body !== bodies[0]) expect(last.content.at(-1)?.text).not.toBe(clock);
    }
    expect(calls[0]!.tailScopes.map((decision) => decision.scope)).toEqual(['turn', 'turn']);
  });

  it('auto costs no more than request scope on the tool-loop script', async () => {
    const request = await run('request');
    const auto = await run('auto');
    expect(auto.figures.rejected).toBe(0);
    expect(inputCost(auto.figures)).toBeLessThanOrEqual(inputCost(request.figures));
    expect(auto.calls.some((call) => call.tailScopes.some((decision) => decision.scope === 'turn'))).toBe(true);
  });
});
