import { describe, expect, it } from 'vitest';
import type { CacheBreak } from '../../cache/break/break-detector.js';
import { scriptedReplies } from '../test-support/coding-agent-script.js';
import { runFigures, startCodingAgentServer } from '../test-support/coding-agent-server.js';
import { cachetPiHooks } from './cachet-pi-hooks.js';
import { type PiRunMode, runCodingAgentOnPi } from './test-support/run-coding-agent.js';

async function run(mode: PiRunMode, options = {}) {
  const server = await startCodingAgentServer();
  try {
    const replies = await runCodingAgentOnPi(server.origin, mode, options);
    return { server, replies, figures: runFigures(server.verdicts, server.bodies) };
  } finally {
    await server.close();
  }
}

describe('cachetPiHooks (real pi-ai against a local Messages API)', () => {
  it('reads more than pi-ai’s own markers with a dynamic system prompt, never over four markers', async () => {
    const pi = await run('pi');
    const breaks: CacheBreak[] = [];
    const cachet = await run('cachet-tail', { onBreak: (found: CacheBreak) => breaks.push(found) });
    expect(pi.figures.requests).toBe(scriptedReplies().length);
    expect(cachet.figures.requests).toBe(scriptedReplies().length);
    expect(cachet.figures.maxMarkers).toBeLessThanOrEqual(4);
    expect(cachet.figures.rejected).toBe(0);
    expect(cachet.figures.readShare).toBeGreaterThan(pi.figures.readShare);
    expect(cachet.figures.readShare).toBeGreaterThan(0.7);
    // The tail changes every turn, but it sits after the last breakpoint: no break is reported.
    expect(breaks.filter((found) => found.zone === 'system')).toEqual([]);
    // pi-ai reads the usage Cachet's cache model reported.
    expect(cachet.replies.reduce((sum, reply) => sum + reply.usage.cacheRead, 0)).toBe(cachet.figures.cacheReadTokens);
  });

  it('requires a conversation id and a known marker policy', () => {
    expect(() => cachetPiHooks({ conversationId: '' })).toThrow(/conversationId/);
    expect(() => cachetPiHooks({ conversationId: 'c', existingMarkers: 'merge' as never })).toThrow(/existingMarkers/);
  });
});
