// Runs on Node ≥ 22 only (`ai` 7 requires it): `npm run test:node22`, which `npm test` calls.
import { describe, expect, it } from 'vitest';
import type { CacheBreak } from '../../cache/break/break-detector.js';
import type { Usage } from '../../model/usage.js';
import { scriptedReplies } from '../test-support/coding-agent-script.js';
import { runFigures, startCodingAgentServer } from '../test-support/coding-agent-server.js';
import type { AiSdkRunMode } from './test-support/run-coding-agent.js';
import { runCodingAgentOnAiSdk7 } from './test-support/run-coding-agent-v7.js';

async function run(mode: AiSdkRunMode, stream = false, middleware = {}) {
  const server = await startCodingAgentServer();
  try {
    await runCodingAgentOnAiSdk7(server.origin, mode, { stream, middleware });
    return { server, figures: runFigures(server.verdicts, server.bodies) };
  } finally {
    await server.close();
  }
}

describe(`cachetMiddleware on ai 7 (real @ai-sdk/anthropic 4, Node ${process.versions.node})`, () => {
  it('reads at least as much as the cookbook recipe, never over four markers', async () => {
    const recipe = await run('recipe');
    const cachet = await run('cachet');
    const tail = await run('cachet-tail');
    for (const result of [recipe, cachet, tail]) expect(result.figures.requests).toBe(scriptedReplies().length);
    for (const result of [cachet, tail]) {
      expect(result.figures.maxMarkers).toBeLessThanOrEqual(4);
      expect(result.figures.rejected).toBe(0);
      expect(result.figures.readShare).toBeGreaterThanOrEqual(recipe.figures.readShare);
    }
    expect(tail.figures.readShare).toBeGreaterThan(0.7);
    console.log(
      JSON.stringify({ node: process.versions.node, recipe: recipe.figures, cachet: cachet.figures, tail: tail.figures }),
    );
  });

  it('streams: usage and breaks come from the finish part', async () => {
    const usages: Usage[] = [];
    const breaks: CacheBreak[] = [];
    const { figures } = await run('cachet', true, {
      onUsage: (usage: Usage) => usages.push(usage),
      onBreak: (found: CacheBreak) => breaks.push(found),
    });
    expect(usages).toHaveLength(figures.requests);
    expect(usages.reduce((sum, usage) => sum + usage.cacheReadTokens, 0)).toBe(figures.cacheReadTokens);
    expect(breaks.length).toBeGreaterThanOrEqual(5);
    expect(breaks[0]!.cause).toBe('clock');
  });
});
