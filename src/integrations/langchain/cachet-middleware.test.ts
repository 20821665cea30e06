import { describe, expect, it } from 'vitest';
import type { CacheBreak } from '../../cache/break/break-detector.js';
import type { Usage } from '../../model/usage.js';
import { scriptedReplies } from '../test-support/coding-agent-script.js';
import { countMarkers, runFigures, startCodingAgentServer } from '../test-support/coding-agent-server.js';
import { cachetMiddleware } from './cachet-middleware.js';
import { type LangChainRunMode, runCodingAgentOnLangChain } from './test-support/run-coding-agent.js';

async function run(mode: LangChainRunMode, middleware = {}) {
  const server = await startCodingAgentServer();
  try {
    await runCodingAgentOnLangChain(server.origin, mode, { middleware });
    return { server, figures: runFigures(server.verdicts, server.bodies) };
  } finally {
    await server.close();
  }
}

describe('cachetMiddleware for LangChain createAgent (real @langchain/anthropic against a local Messages API)', () => {
  it('reads at least as much as anthropicPromptCachingMiddleware with a dynamic system prompt, never over four markers', async () => {
    const recipe = await run('recipe');
    const cachet = await run('cachet');
    const tail = await run('cachet-tail');
    for (const result of [recipe, cachet, tail]) expect(result.figures.requests).toBe(scriptedReplies().length);
    // LangChain's middleware leaves the first request unmarked (minMessagesToCache 3); Cachet marks it.
    expect(countMarkers(recipe.server.bodies[0])).toBe(0);
    expect(countMarkers(cachet.server.bodies[0])).toBeGreaterThan(0);
    for (const result of [cachet, tail]) {
      expect(result.figures.maxMarkers).toBeLessThanOrEqual(4);
      expect(result.figures.rejected).toBe(0);
      expect(result.figures.readShare).toBeGreaterThanOrEqual(recipe.figures.readShare);
    }
    expect(tail.figures.readShare).toBeGreaterThan(0.7);
  });

  it('reports the dynamic system prompt as the cause of each new turn’s miss, and maps usage', async () => {
    const breaks: CacheBreak[] = [];
    const usages: Usage[] = [];
    const { figures } = await run('cachet', {
      onBreak: (found: CacheBreak) => breaks.push(found),
      onUsage: (usage: Usage) => usages.push(usage),
    });
    expect(usages).toHaveLength(figures.requests);
    expect(usages.reduce((sum, usage) => sum + usage.cacheReadTokens, 0)).toBe(figures.cacheReadTokens);
    expect(breaks.length).toBeGreaterThanOrEqual(5);
    expect(breaks.every((found) => found.zone === 'system')).toBe(true);
    expect(breaks[0]!.cause).toBe('clock');
  });

  it('checks its options once, at creation', () => {
    expect(() => cachetMiddleware({ existingMarkers: 'merge' as never })).toThrow(/existingMarkers/);
    expect(() => cachetMiddleware({ unsupportedModelBehavior: 'loud' as never })).toThrow(/unsupportedModelBehavior/);
  });
});
