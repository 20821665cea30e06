import { describe, expect, it } from 'vitest';
import type { HindsightRequest } from '../oracle/hindsight-run.js';
import { sharedCounter } from '../runtime/prepare-request.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { hindsightRunOf } from './hindsight-run-of.js';

const units = (request: HindsightRequest) => [
  ...request.tools,
  ...request.statics,
  ...request.earlierHistory,
  ...request.userMessage,
  ...request.turnHistory,
];
const frameTokens = (request: HindsightRequest) =>
  units(request)
    .filter((unit) => unit.id.startsWith('frame/'))
    .reduce((total, unit) => total + unit.tokens, 0);

describe('hindsightRunOf', () => {
  it('places the wire framing the cache model counts beyond the content where each request adds content', async () => {
    const workload = await loadWorkload('python-app-local');
    const context = {
      provider: 'openai-compatible' as const,
      model: 'qwen3-8b',
      counter: sharedCounter('openai-compatible', 'qwen3-8b'),
    };
    const bare = hindsightRunOf(workload, context);
    expect(bare.requests.every((request) => frameTokens(request) === 0)).toBe(true);
    // A wire that adds 300 tokens to the first request and 20 to each later one.
    const content = bare.requests.map((request) => units(request).reduce((total, unit) => total + unit.tokens + 1, 0));
    const wireTokens = content.map((tokens, index) => tokens + 300 + 20 * index);
    const framed = hindsightRunOf(workload, { ...context, wireTokens });
    // Units are counted one token short of the counter (the joining relaxation): the frames carry the rest.
    expect(frameTokens(framed.requests[0] as HindsightRequest)).toBeGreaterThanOrEqual(300);
    const last = framed.requests.length - 1;
    expect(frameTokens(framed.requests[last] as HindsightRequest)).toBeGreaterThanOrEqual(300 + 20 * last);
    // Framing already placed is never placed again, and a wire that counts less than the content places none.
    const less = hindsightRunOf(workload, { ...context, wireTokens: content.map((tokens) => tokens - 500) });
    expect(less.requests.every((request) => frameTokens(request) === 0)).toBe(true);
  });

  it("carries each turn's extended-thinking setting onto its requests (no pre-warm request follows them)", async () => {
    const workload = await loadWorkload('cms-agent');
    const thinking = { type: 'adaptive' as const };
    const withThinking = {
      ...workload,
      turns: workload.turns.map((turn) => (turn.turn === 2 ? { ...turn, params: { ...turn.params, thinking } } : turn)),
    };
    const run = hindsightRunOf(withThinking, {
      provider: 'openrouter',
      model: workload.model,
      counter: sharedCounter('openrouter', workload.model),
    });
    expect(run.requests.filter((request) => request.turn === 2).every((request) => request.thinking === thinking)).toBe(true);
    expect(run.requests.filter((request) => request.turn !== 2).every((request) => request.thinking === undefined)).toBe(true);
  });
});
