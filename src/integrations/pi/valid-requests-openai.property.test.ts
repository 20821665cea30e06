import { afterAll, beforeAll, describe, it } from 'vitest';
import { openAIJudge } from '../test-support/openai-tool-loop.js';
import { checkToolLoopProperty, TOOL_LOOP_PROPERTY_RUNS } from '../test-support/tool-loop-property.js';
import { runOnPi, startOpenAIToolLoopServer } from './test-support/run-tool-loop.js';

let server: Awaited<ReturnType<typeof startOpenAIToolLoopServer>>;
beforeAll(async () => {
  server = await startOpenAIToolLoopServer();
});
afterAll(() => server.close());

// cachetPiHooks lays out OpenAI payloads like the other drop-ins: the cache key, the tail last (in
// the final user message or after tool results as a trailing system message), turn-scoped texts in
// the opening user message, volatile system paragraphs moved there.
const chat = openAIJudge('chat');

describe('cachetPiHooks with an openai-completions model: every request valid over random tool loops', () => {
  it(`${TOOL_LOOP_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, tail scopes, volatile system text)`, async () => {
    await checkToolLoopProperty(
      'pi openai-completions',
      (script, withCachet) => runOnPi(server, script, withCachet, 'openai-completions'),
      ['images', 'parallelResults', 'tailAfterResults', 'turnTail', 'volatileMoved'],
      chat,
    );
  }, 120_000);
});
