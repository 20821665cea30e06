import fc from 'fast-check';
import { expect } from 'vitest';
import {
  addCoverage,
  emptyCoverage,
  type ToolLoopCoverage,
  type ToolLoopScript,
  toolLoopScript,
  toolLoopViolation,
} from './tool-loop-script.js';

/** Conversations per property run; CACHET_PROPERTY_RUNS raises it for a longer local run (the note records one). */
export const TOOL_LOOP_PROPERTY_RUNS = Number(process.env.CACHET_PROPERTY_RUNS ?? 40);

type Run = (script: ToolLoopScript, withCachet: boolean) => Promise<Array<Record<string, unknown>>>;

/** One script through the library with and without Cachet: every Cachet body valid and unchanged in meaning. */
export async function expectValidToolLoop(run: Run, script: ToolLoopScript, coverage?: ToolLoopCoverage): Promise<number> {
  const own = await run(script, false);
  const cachet = await run(script, true);
  expect(cachet).toHaveLength(own.length);
  cachet.forEach((body, index) => {
    expect(toolLoopViolation(body, own[index]!, script.tail), `request ${index + 1}`).toBeNull();
    if (coverage) addCoverage(coverage, body, script.tail);
  });
  return cachet.length;
}

/**
 * The validity property over `TOOL_LOOP_PROPERTY_RUNS` random conversations; checks the runs
 * exercised what they claim (`required` coverage counters above zero) and logs the figures.
 */
export async function checkToolLoopProperty(
  label: string,
  run: Run,
  required: ReadonlyArray<keyof ToolLoopCoverage>,
): Promise<void> {
  const coverage = emptyCoverage();
  let requests = 0;
  await fc.assert(
    fc.asyncProperty(toolLoopScript, async (script) => {
      requests += await expectValidToolLoop(run, script, coverage);
    }),
    { numRuns: TOOL_LOOP_PROPERTY_RUNS },
  );
  expect(Math.min(...required.map((key) => coverage[key]))).toBeGreaterThan(0);
  console.log(JSON.stringify(coverage));
  console.log(`${label} property: ${TOOL_LOOP_PROPERTY_RUNS} conversations, ${requests} requests, 0 invalid`);
}
