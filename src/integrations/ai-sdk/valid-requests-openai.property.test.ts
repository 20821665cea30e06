import { describe, it } from 'vitest';
import { openAIJudge } from '../test-support/openai-tool-loop.js';
import { checkToolLoopProperty, TOOL_LOOP_PROPERTY_RUNS } from '../test-support/tool-loop-property.js';
import { runOnAiSdkOpenAI } from './test-support/run-tool-loop.js';

const REQUIRED = ['images', 'parallelResults', 'tailAfterResults', 'turnTail', 'volatileMoved'] as const;

describe('cachetMiddleware for the AI SDK with @ai-sdk/openai: every request valid over random tool loops', () => {
  it(`Chat Completions: ${TOOL_LOOP_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, tail scopes)`, async () => {
    await checkToolLoopProperty('ai-sdk openai chat', runOnAiSdkOpenAI('chat'), REQUIRED, openAIJudge('chat'));
  }, 120_000);

  it(`Responses: ${TOOL_LOOP_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, tail scopes)`, async () => {
    await checkToolLoopProperty('ai-sdk openai responses', runOnAiSdkOpenAI('responses'), REQUIRED, openAIJudge('responses'));
  }, 120_000);
});
