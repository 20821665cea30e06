import { afterAll, beforeAll, describe, it } from 'vitest';
import { openAIJudge } from '../test-support/openai-tool-loop.js';
import { checkToolLoopProperty, TOOL_LOOP_PROPERTY_RUNS } from '../test-support/tool-loop-property.js';
import { runOnPi, startOpenAIToolLoopServer } from './test-support/run-tool-loop.js';

let server: Awaited<ReturnType<typeof startOpenAIToolLoopServer>>;
beforeAll(async () => {
  server = await startOpenAIToolLoopServer();
});
afterAll(() => server.close());

// cachetPiHooks on an OpenAI model only sets `prompt_cache_key` (no tail, no volatile move), so the
// judge is told of no tail or moved text: every body must equal pi's own but for the cache key.
const chat = openAIJudge('chat');
const cacheKeyOnly = {
  violation: (cachet: Record<string, unknown>, own: Record<string, unknown>) => chat.violation(cachet, own, [], []),
  addCoverage: chat.addCoverage,
};

describe('cachetPiHooks with an openai-completions model: every request valid over random tool loops', () => {
  it(`${TOOL_LOOP_PROPERTY_RUNS} random conversations (parallel calls, images, empty text)`, async () => {
    await checkToolLoopProperty(
      'pi openai-completions',
      (script, withCachet) => runOnPi(server, script, withCachet, 'openai-completions'),
      ['images', 'parallelResults'],
      cacheKeyOnly,
    );
  }, 120_000);
});
