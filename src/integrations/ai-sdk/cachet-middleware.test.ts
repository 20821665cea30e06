import { describe, expect, it } from 'vitest';
import type { CacheBreak } from '../../cache/break/break-detector.js';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import type { Usage } from '../../model/usage.js';
import { CODING_AGENT_PERSONA, clockText, scriptedReplies } from '../test-support/coding-agent-script.js';
import { countMarkers, runFigures, startCodingAgentServer } from '../test-support/coding-agent-server.js';
import { cachetMiddleware } from './cachet-middleware.js';
import { runCodingAgentOnAiSdk } from './test-support/run-coding-agent.js';

async function run(mode: 'recipe' | 'cachet' | 'cachet-tail', stream = false, middleware = {}) {
  const server = await startCodingAgentServer();
  try {
    await runCodingAgentOnAiSdk(server.origin, mode, { stream, middleware });
    return { server, figures: runFigures(server.verdicts, server.bodies) };
  } finally {
    await server.close();
  }
}

describe('cachetMiddleware on ai 6 (real @ai-sdk/anthropic against a local Messages API)', () => {
  it('reads at least as much as the cookbook recipe on the scripted coding agent, never over four markers', async () => {
    const recipe = await run('recipe');
    const cachet = await run('cachet');
    const tail = await run('cachet-tail');
    expect(recipe.figures.requests).toBe(scriptedReplies().length);
    expect(cachet.figures.requests).toBe(scriptedReplies().length);
    for (const result of [cachet, tail]) {
      expect(result.figures.maxMarkers).toBeLessThanOrEqual(4);
      expect(result.figures.rejected).toBe(0);
      expect(result.figures.readShare).toBeGreaterThanOrEqual(recipe.figures.readShare);
    }
    // With the volatile context moved to the tail, the history is read across turns.
    expect(tail.figures.readShare).toBeGreaterThan(0.7);
    expect(tail.figures.readShare).toBeGreaterThan(cachet.figures.readShare);
  });

  it('puts the tail after the last breakpoint and leaves the system prompt and tools byte-identical', async () => {
    const { server } = await run('cachet-tail');
    const body = server.bodies[1]!;
    const messages = body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const last = messages.at(-1)!;
    expect(last.role).toBe('user');
    // A tool loop: the tool result, then the tail text in the same wire user message.
    expect(last.content.map((block) => block.type)).toEqual(['tool_result', 'text', 'text']);
    expect(last.content[1]!.text).toBe(clockText(0));
    expect(last.content[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(last.content[1]!.cache_control).toBeUndefined();
    expect((body.system as Array<{ text: string }>)[0]!.text).toBe(CODING_AGENT_PERSONA);
    const tools = body.tools as Array<Record<string, unknown>>;
    expect(tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(countMarkers(body)).toBeLessThanOrEqual(4);
  });

  it('streams: usage and breaks are read from the finish part without changing the stream', async () => {
    const usages: Usage[] = [];
    const breaks: CacheBreak[] = [];
    const { figures } = await run('cachet', true, {
      onUsage: (usage: Usage) => usages.push(usage),
      onBreak: (found: CacheBreak) => breaks.push(found),
    });
    expect(usages).toHaveLength(figures.requests);
    expect(usages.reduce((sum, usage) => sum + usage.cacheReadTokens, 0)).toBe(figures.cacheReadTokens);
    // The dynamic system prompt changes every turn: each new turn is a break with the clock as its cause.
    expect(breaks.length).toBeGreaterThanOrEqual(5);
    expect(breaks.every((found) => found.zone === 'system')).toBe(true);
    expect(breaks[0]!.cause).toBe('clock');
  });

  it('publishes request.assembled, usage.recorded and cache.break under one conversation id', async () => {
    const bus = new EventBus();
    const events: CachetEvent[] = [];
    bus.onAny((event) => events.push(event));
    await run('cachet', false, { bus, conversationId: 'conv-1' });
    const types = new Set(events.map((event) => event.type));
    expect(types).toEqual(new Set(['request.assembled', 'usage.recorded', 'cache.break']));
    expect(new Set(events.map((event) => event.sessionId))).toEqual(new Set(['conv-1']));
    const assembled = events.filter((event): event is CachetEvent<'request.assembled'> => event.type === 'request.assembled');
    expect(assembled.every((event) => event.payload.breakpoints.length <= 4)).toBe(true);
    expect(assembled[1]!.payload.sharedBlocks).toBeGreaterThan(0);
  });

  it('checks its options once, at creation', () => {
    expect(() => cachetMiddleware({ maxConversations: 0 })).toThrow(/maxConversations/);
    expect(() => cachetMiddleware({ existingMarkers: 'merge' as never })).toThrow(/existingMarkers/);
  });
});
