import { describe, expect, it } from 'vitest';
import { checkToolLoopProperty, expectValidToolLoop, TOOL_LOOP_PROPERTY_RUNS } from '../test-support/tool-loop-property.js';
import type { ToolLoopScript } from '../test-support/tool-loop-script.js';
import { runOnLangChain } from './test-support/run-tool-loop.js';

describe('cachetMiddleware for LangChain: every request valid over random tool loops', () => {
  it('keeps parallel tool results in one message, the tail after them', async () => {
    const script: ToolLoopScript = {
      turns: [
        {
          userText: 'Fix the build.',
          image: false,
          steps: [
            { thinking: false, text: 'Looking.', toolCalls: 3 },
            { thinking: false, text: 'Done.', toolCalls: 0 },
          ],
        },
      ],
      tail: ['Current time: 09:00', 'Recalled: the build uses vitest.'],
      existingMarkers: 'replace',
      tailScope: 'request',
      volatileSystem: true,
    };
    expect(await expectValidToolLoop(runOnLangChain, script)).toBe(2);
  });

  it(`${TOOL_LOOP_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, thinking, tail scopes)`, async () => {
    await checkToolLoopProperty('langchain', runOnLangChain, [
      'thinking',
      'images',
      'parallelResults',
      'tailAfterResults',
      'turnTail',
      'volatileMoved',
    ]);
  }, 120_000);
});
