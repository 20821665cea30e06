import { describe, it } from 'vitest';
import { checkToolLoopProperty, TOOL_LOOP_PROPERTY_RUNS } from '../test-support/tool-loop-property.js';
import { runOnAiSdk } from './test-support/run-tool-loop.js';

describe('cachetMiddleware for the AI SDK: every request valid over random tool loops', () => {
  it(`${TOOL_LOOP_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, thinking, tail scopes)`, async () => {
    await checkToolLoopProperty('ai-sdk', runOnAiSdk, [
      'thinking',
      'images',
      'parallelResults',
      'tailAfterResults',
      'turnTail',
      'volatileMoved',
    ]);
  }, 120_000);
});
