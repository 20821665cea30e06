import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addCoverage,
  emptyCoverage,
  type ToolLoopScript,
  toolLoopScript,
  toolLoopViolation,
} from '../test-support/tool-loop-script.js';
import { runOnLangChain } from './test-support/run-tool-loop.js';

// CACHET_PROPERTY_RUNS raises the count for a longer local run (the note records one).
const LANGCHAIN_PROPERTY_RUNS = Number(process.env.CACHET_PROPERTY_RUNS ?? 40);

const coverage = emptyCoverage();

async function expectValid(script: ToolLoopScript): Promise<number> {
  const own = await runOnLangChain(script, false);
  const cachet = await runOnLangChain(script, true);
  expect(cachet).toHaveLength(own.length);
  cachet.forEach((body, index) => {
    expect(toolLoopViolation(body, own[index]!, script.tail), `request ${index + 1}`).toBeNull();
    addCoverage(coverage, body, script.tail);
  });
  return cachet.length;
}

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
    };
    expect(await expectValid(script)).toBe(2);
  });

  it(`${LANGCHAIN_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, thinking, tail)`, async () => {
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(toolLoopScript, async (script) => {
        requests += await expectValid(script);
      }),
      { numRuns: LANGCHAIN_PROPERTY_RUNS },
    );
    // The runs exercised what they claim to: thinking, images, parallel results, a tail after tool results.
    expect(
      Math.min(coverage.thinking, coverage.images, coverage.parallelResults, coverage.tailAfterResults, coverage.turnTail),
    ).toBeGreaterThan(0);
    console.log(JSON.stringify(coverage));
    console.log(`langchain property: ${LANGCHAIN_PROPERTY_RUNS} conversations, ${requests} requests, 0 invalid`);
  }, 120_000);
});
