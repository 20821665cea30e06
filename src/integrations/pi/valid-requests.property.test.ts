import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkToolLoopProperty, TOOL_LOOP_PROPERTY_RUNS } from '../test-support/tool-loop-property.js';
import { runOnPi, startToolLoopServer } from './test-support/run-tool-loop.js';

let server: Awaited<ReturnType<typeof startToolLoopServer>>;
beforeAll(async () => {
  server = await startToolLoopServer();
});
afterAll(() => server.close());

describe('cachetPiHooks: every request valid over random tool loops', () => {
  it(`${TOOL_LOOP_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, thinking, tail scopes)`, async () => {
    await checkToolLoopProperty('pi', (script, withCachet) => runOnPi(server, script, withCachet), [
      'images',
      'parallelResults',
      'tailAfterResults',
      'turnTail',
      'volatileMoved',
    ]);
  }, 120_000);
});
