import fc from 'fast-check';
import { expect } from 'vitest';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import {
  addCoverage,
  emptyCoverage,
  scriptedVolatileTexts,
  type ToolLoopCoverage,
  type ToolLoopScript,
  toolLoopScript,
  toolLoopViolation,
} from './tool-loop-script.js';

/** Conversations per property run (`propertyRuns`: CACHET_PROPERTY_RUNS raises it in `npm run test:deep`). */
export const TOOL_LOOP_PROPERTY_RUNS = propertyRuns(40);

/**
 * Two scripts that between them exercise every coverage counter (thinking, an image, parallel
 * results, a request-scoped tail after results, a turn-scoped tail kept in an earlier message),
 * run before the random ones so the coverage check does not depend on the random seed.
 */
export const COVERING_SCRIPTS: ReadonlyArray<ToolLoopScript> = (['turn', 'request'] as const).map((tailScope) => ({
  turns: [
    {
      userText: 'read src/app.ts',
      image: true,
      steps: [
        { thinking: true, text: 'ok', toolCalls: 2 },
        { thinking: false, text: '', toolCalls: 1 },
        { thinking: true, text: 'the build is red', toolCalls: 0 },
      ],
    },
    {
      userText: 'alpha beta',
      image: false,
      steps: [
        { thinking: false, text: null, toolCalls: 3 },
        { thinking: false, text: 'ok', toolCalls: 0 },
      ],
    },
  ],
  tail: ['gamma delta'],
  tailScope,
  existingMarkers: 'replace' as const,
  volatileSystem: tailScope === 'turn',
}));

type Run = (script: ToolLoopScript, withCachet: boolean) => Promise<Array<Record<string, unknown>>>;

/** How one wire shape judges a body (validity and meaning against the library's own) and counts its coverage. */
export interface ToolLoopJudge {
  violation: typeof toolLoopViolation;
  addCoverage: typeof addCoverage;
}

/** The Anthropic Messages shape: the emulator's validator and `toolLoopViolation`. */
export const ANTHROPIC_JUDGE: ToolLoopJudge = { violation: toolLoopViolation, addCoverage };

/** One script through the library with and without Cachet: every Cachet body valid and unchanged in meaning. */
export async function expectValidToolLoop(
  run: Run,
  script: ToolLoopScript,
  coverage?: ToolLoopCoverage,
  judge: ToolLoopJudge = ANTHROPIC_JUDGE,
): Promise<number> {
  const own = await run(script, false);
  const cachet = await run(script, true);
  expect(cachet).toHaveLength(own.length);
  cachet.forEach((body, index) => {
    const volatileTexts = scriptedVolatileTexts(script);
    expect(judge.violation(body, own[index]!, script.tail, volatileTexts), `request ${index + 1}`).toBeNull();
    if (coverage) judge.addCoverage(coverage, body, script.tail, volatileTexts);
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
  judge: ToolLoopJudge = ANTHROPIC_JUDGE,
): Promise<void> {
  const coverage = emptyCoverage();
  let requests = 0;
  await fc.assert(
    fc.asyncProperty(toolLoopScript, async (script) => {
      requests += await expectValidToolLoop(run, script, coverage, judge);
    }),
    { numRuns: TOOL_LOOP_PROPERTY_RUNS, examples: COVERING_SCRIPTS.map((script) => [script] as [ToolLoopScript]) },
  );
  expect(Math.min(...required.map((key) => coverage[key]))).toBeGreaterThan(0);
  console.log(JSON.stringify(coverage));
  console.log(`${label} property: ${TOOL_LOOP_PROPERTY_RUNS} conversations, ${requests} requests, 0 invalid`);
}
