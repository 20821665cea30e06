import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCoverage,
  emptyCoverage,
  type ToolLoopScript,
  toolLoopScript,
  toolLoopViolation,
} from '../test-support/tool-loop-script.js';
import { runOnPi, startToolLoopServer } from './test-support/run-tool-loop.js';

// CACHET_PROPERTY_RUNS raises the count for a longer local run (the note records one).
const PI_PROPERTY_RUNS = Number(process.env.CACHET_PROPERTY_RUNS ?? 40);

let server: Awaited<ReturnType<typeof startToolLoopServer>>;
beforeAll(async () => {
  server = await startToolLoopServer();
});
afterAll(() => server.close());

const coverage = emptyCoverage();

async function expectValid(script: ToolLoopScript): Promise<number> {
  const own = await runOnPi(server, script, false);
  const cachet = await runOnPi(server, script, true);
  expect(cachet).toHaveLength(own.length);
  cachet.forEach((body, index) => {
    expect(toolLoopViolation(body, own[index]!, script.tail), `request ${index + 1}`).toBeNull();
    addCoverage(coverage, body, script.tail);
  });
  return cachet.length;
}

describe('cachetPiHooks: every request valid over random tool loops', () => {
  it(`${PI_PROPERTY_RUNS} random conversations (parallel calls, images, empty text, thinking, tail)`, async () => {
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(toolLoopScript, async (script) => {
        requests += await expectValid(script);
      }),
      { numRuns: PI_PROPERTY_RUNS },
    );
    expect(Math.min(coverage.images, coverage.parallelResults, coverage.tailAfterResults, coverage.turnTail)).toBeGreaterThan(0);
    console.log(JSON.stringify(coverage));
    console.log(`pi property: ${PI_PROPERTY_RUNS} conversations, ${requests} requests, 0 invalid`);
  }, 120_000);
});
