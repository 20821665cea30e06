import type { ContentBlock, ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { assemble } from '../../session/assemble.js';
import type { TailProvider } from '../../session/tail-provider.js';
import { fixtureSession } from '../anthropic/test-support/fixtures.js';
import { appendToolLoop, textTurn } from '../anthropic/test-support/tool-loop-session.js';
import { convertToBedrock } from './convert-request.js';
import { resolveBedrockModel } from './models.js';
import type { BedrockOptions } from './options.js';
import { validateBedrockCheckpoints } from './validate-checkpoints.js';

const stepArbitrary = fc.record({
  thinking: fc.boolean(),
  text: fc.option(fc.string({ minLength: 1, maxLength: 30 }), { nil: undefined }),
  calls: fc.integer({ min: 0, max: 6 }),
  resultSize: fc.integer({ min: 1, max: 12_000 }),
});

const scenarioArbitrary = fc.record({
  model: fc.constantFrom(
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'global.anthropic.claude-haiku-4-5-20251001-v1:0',
    'anthropic.claude-3-7-sonnet-20250219-v1:0',
    'amazon.nova-pro-v1:0',
    'us.amazon.nova-micro-v1:0',
    'meta.llama3-70b-instruct-v1:0',
  ),
  globalSize: fc.integer({ min: 1, max: 30_000 }),
  sessionSize: fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: undefined }),
  turns: fc.array(
    fc.record({ userText: fc.string({ minLength: 1, maxLength: 40 }), steps: fc.array(stepArbitrary, { maxLength: 3 }) }),
    {
      minLength: 1,
      maxLength: 4,
    },
  ),
  endInToolLoop: fc.boolean(),
  tail: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
  ttl: fc.record({
    global: fc.constantFrom('5m', '1h'),
    session: fc.constantFrom('5m', '1h'),
    history: fc.constantFrom('5m', '1h'),
  }),
  breakpoints: fc.constantFrom('plan', 'none'),
});

type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never;

function build(scenario: Scenario) {
  let version = 0;
  const tail: TailProvider[] = scenario.tail.map((text) => ({
    kind: 'custom',
    position: 'end',
    render: () => `${text}#${version}`,
  }));
  const session = fixtureSession({
    model: scenario.model,
    tail,
    globalSystem: [{ label: 'persona', text: 'g'.repeat(scenario.globalSize * 4) }],
    sessionStatic: { system: scenario.sessionSize ? [{ label: 'project', text: 's'.repeat(scenario.sessionSize * 4) }] : [] },
  });
  appendToolLoop(
    session,
    scenario.turns.map((turn) => textTurn(turn.userText, turn.steps)),
    {
      endInToolLoop: scenario.endInToolLoop,
      answer: { thinking: false, text: 'ok', calls: 0, resultSize: 1 },
      reasoning: (step, id) => (step.thinking ? [{ type: 'thinking', thinking: `think ${id}`, signature: `sig-${id}` }] : []),
      resultText: (step) => 'r'.repeat(step.resultSize),
    },
  );
  const options: BedrockOptions = { ttl: scenario.ttl, breakpoints: scenario.breakpoints };
  return { session, options, bumpTail: () => (version += 1) };
}

function contentOf(body: ConverseCommandInput): Array<{ role: string; block: ContentBlock }> {
  return (body.messages ?? []).flatMap((message) =>
    (message.content ?? []).map((block) => ({ role: message.role ?? '', block })),
  );
}

describe('convertToBedrock properties (random valid sessions)', () => {
  it('bodies stay within the documented limits of their model and keep the cached prefix stable', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { session, options, bumpTail } = build(scenario);
        const first = convertToBedrock(assemble(session), options);
        expect(JSON.stringify(convertToBedrock(assemble(session), options).body)).toBe(JSON.stringify(first.body));
        const body = first.body;
        const row = resolveBedrockModel(scenario.model);

        // Count, fields, TTLs offered and their order, placement after a block.
        expect(validateBedrockCheckpoints(body)).toEqual([]);
        const points = JSON.stringify(body).split('"cachePoint"').length - 1;
        expect(points).toBe(first.metadata.breakpoints.length);
        expect(points).toBeLessThanOrEqual(row.maxCheckpoints);
        if (!row.cacheFields.includes('tools')) expect(JSON.stringify(body.toolConfig ?? {})).not.toContain('cachePoint');
        for (const checkpoint of first.metadata.breakpoints) {
          expect(checkpoint.zone).not.toBe('tail');
          if (row.maxCachedPrefixTokens !== null)
            expect(checkpoint.estimatedPrefixTokens).toBeLessThanOrEqual(row.maxCachedPrefixTokens);
        }

        // Converse rules: roles alternate starting with user; no empty text; no checkpoint after reasoning.
        const roles = (body.messages ?? []).map((message) => message.role);
        expect(roles[0]).toBe('user');
        roles.forEach((role, index) => {
          if (index > 0) expect(role).not.toBe(roles[index - 1]);
        });
        const blocks = contentOf(body);
        blocks.forEach(({ block }, index) => {
          if (block.text !== undefined) expect(block.text.length).toBeGreaterThan(0);
          if (block.cachePoint) expect(blocks[index - 1]?.block.reasoningContent).toBeUndefined();
        });

        // Every toolUse is answered in the next user message.
        (body.messages ?? []).forEach((message, index) => {
          const ids = (message.content ?? []).flatMap((block) => (block.toolUse ? [block.toolUse.toolUseId] : []));
          if (ids.length === 0) return;
          const answered = (body.messages?.[index + 1]?.content ?? []).flatMap((block) =>
            block.toolResult ? [block.toolResult.toolUseId] : [],
          );
          expect(answered).toEqual(ids);
        });

        // What precedes each checkpoint is persisted: the next request starts with the same blocks.
        bumpTail();
        session.append({ role: 'assistant', content: [{ type: 'text', text: 'reply' }] });
        session.appendUserText('more');
        const next = convertToBedrock(assemble(session), { ...options, previous: first.metadata.cacheState }).body;
        const before = flatten(body);
        const after = flatten(next);
        const lastPoint = before.lastIndexOf('cachePoint');
        if (lastPoint >= 0) {
          const stable = before.slice(0, lastPoint).filter((entry) => entry !== 'cachePoint');
          expect(after.filter((entry) => entry !== 'cachePoint').slice(0, stable.length)).toEqual(stable);
        }
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});

/** Tools, system blocks and message blocks in wire order; checkpoints as the word `cachePoint`. */
function flatten(body: ConverseCommandInput): string[] {
  const entry = (value: object) => ('cachePoint' in value && value.cachePoint ? 'cachePoint' : JSON.stringify(value));
  return [
    ...(body.toolConfig?.tools ?? []).map(entry),
    ...(body.system ?? []).map(entry),
    ...contentOf(body).map(({ role, block }) => (block.cachePoint ? 'cachePoint' : `${role}:${entry(block)}`)),
  ];
}
