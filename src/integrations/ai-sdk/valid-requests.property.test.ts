import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addCoverage,
  emptyCoverage,
  type ToolLoopScript,
  toolLoopScript,
  toolLoopViolation,
} from '../test-support/tool-loop-script.js';
import { runOnAiSdk } from './test-support/run-tool-loop.js';

// CACHET_PROPERTY_RUNS raises the count for a longer local run (the note records one).
const AI_SDK_PROPERTY_RUNS = Number(process.env.CACHET_PROPERTY_RUNS ?? 40);

const coverage = emptyCoverage();

async function expectValid(script: ToolLoopScript): Promise<number> {
  const own = await runOnAiSdk(script, false);
  const cachet = await runOnAiSdk(script, true);
  expect(cachet).toHaveLength(own.length);
  cachet.forEach((body, index) => {
    expect(toolLoopViolation(body, own[index]!, script.tail), `request ${index + 1}`).toBeNull();
    addCoverage(coverage, body, script.tail);
  });
  return cachet.length;
}

describe('cachetMiddleware for the AI SDK: every request valid over random tool loops', () => {
  it(`${AI_SDK_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, thinking, tail)`, async () => {
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(toolLoopScript, async (script) => {
        requests += await expectValid(script);
      }),
      { numRuns: AI_SDK_PROPERTY_RUNS },
    );
    // The runs exercised what they claim to: thinking, images, parallel results, a tail after tool results.
    expect(
      Math.min(coverage.thinking, coverage.images, coverage.parallelResults, coverage.tailAfterResults, coverage.turnTail),
    ).toBeGreaterThan(0);
    console.log(JSON.stringify(coverage));
    console.log(`ai-sdk property: ${AI_SDK_PROPERTY_RUNS} conversations, ${requests} requests, 0 invalid`);
  }, 120_000);
});
