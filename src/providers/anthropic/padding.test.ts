import { describe, expect, it } from 'vitest';
import { sha256 } from '../../model/hash.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { charsPerTokenCounter } from '../shared/chars-token-counter.js';
import { convertToAnthropic } from './convert-request.js';
import { ANTHROPIC_MODELS, type AnthropicModelRow, resolveAnthropicModel, UNKNOWN_ANTHROPIC_MODEL } from './models.js';
import { OPERATING_GUIDELINES, OPERATING_GUIDELINES_SECTIONS, OPERATING_GUIDELINES_VERSION } from './operating-guidelines.js';
import { planPadding, planRequestPadding } from './padding.js';
import { plainChat } from './test-support/fixtures.js';

const haiku = resolveAnthropicModel('claude-haiku-4-5-20251001');
const skill = (name: string, words: number) => ({
  name,
  body: `${name} procedure: ${'check the inputs and report. '.repeat(words)}`,
});

describe('planPadding', () => {
  it('auto: does not pad a 265-token prefix that never grows (reads of the padded prefix cost more than 265 uncached)', () => {
    const plan = planPadding({ mode: 'auto', prefixTokens: 265, model: haiku, expectedGrowthTokens: 0 });
    expect(plan.decision.applied).toBe(false);
    expect(plan.blocks).toEqual([]);
    expect(plan.decision.reason).toMatch(
      /^padding to \d+ tokens would cost [\d,]+ vs 2,650 input-token equivalents over 10 requests$/,
    );
    // A refused plan reports the natural size as "after".
    expect(plan.decision.prefixTokensAfter).toBe(265);
  });

  it('auto: pads a 2,600-token prefix, with the cost figures in the reason', () => {
    const plan = planPadding({ mode: 'auto', prefixTokens: 2600, model: haiku, expectedGrowthTokens: 0 });
    const after = plan.decision.prefixTokensAfter;
    expect(plan.decision.applied).toBe(true);
    expect(after).toBeGreaterThanOrEqual(4500);
    expect(after).toBeLessThanOrEqual(5500);
    // Write once at 1.25×, read nine times at 0.1×, against ten full-price sends.
    const expected = `${Math.round(1.25 * after + 9 * 0.1 * after).toLocaleString('en-US')} vs 26,000`;
    expect(plan.decision.reason).toContain(expected);
  });

  it('auto: a global zone that the first user input lifts over the floor is not padded', () => {
    // 3,900 + 500 clears Haiku's 4,096-token floor at the first request: the history breakpoint
    // caches it, so padding would only add reads.
    const plan = planPadding({ mode: 'auto', prefixTokens: 3900, model: haiku, expectedGrowthTokens: 500 });
    expect(plan.decision.applied).toBe(false);
    const noGrowth = planPadding({ mode: 'auto', prefixTokens: 3900, model: haiku, expectedGrowthTokens: 0 });
    expect(noGrowth.decision.applied).toBe(true);
  });

  it('auto: growth per request can make padding pay for a small prefix', () => {
    const plan = planPadding({ mode: 'auto', prefixTokens: 265, model: haiku, expectedGrowthTokens: 500 });
    expect(plan.decision.applied).toBe(true);
    expect(plan.decision.reason).toContain('growing 500 tokens each');
  });

  it('auto: a 1h global TTL doubles the write and can tip the decision', () => {
    const base = { mode: 'auto', prefixTokens: 2600, model: haiku, expectedRequests: 3, expectedGrowthTokens: 0 } as const;
    const fiveMinutes = planPadding(base);
    const oneHour = planPadding({ ...base, ttl: '1h' });
    expect(fiveMinutes.decision.applied).toBe(true);
    expect(oneHour.decision.applied).toBe(false);
  });

  it('always: pads from skills in name order, then guideline sections, within the target', () => {
    const plan = planPadding({
      mode: 'always',
      prefixTokens: 265,
      model: haiku,
      skills: [skill('zeta', 100), skill('alpha', 100), skill('huge', 5000)],
    });
    expect(plan.decision.applied).toBe(true);
    expect(plan.blocks.map((block) => `${block.source}:${block.name}`)).toEqual([
      'skill:alpha',
      'skill:zeta',
      'guidelines:operating-guidelines',
    ]);
    expect(plan.decision.paddedSkills).toEqual(['alpha', 'zeta']);
    expect(plan.blocks[0]?.text.startsWith('# Skill: alpha\n\n')).toBe(true);
    expect(plan.decision.prefixTokensAfter).toBeGreaterThanOrEqual(4500);
    expect(plan.decision.prefixTokensAfter).toBeLessThanOrEqual(5500);
  });

  it('never pads when told not to, or when the prefix already clears the floor', () => {
    expect(planPadding({ mode: 'never', prefixTokens: 265, model: haiku }).decision).toMatchObject({
      applied: false,
      reason: 'padding disabled (never)',
    });
    expect(planPadding({ mode: 'always', prefixTokens: 5000, model: haiku }).decision.applied).toBe(false);
  });

  it('does not pad when the sources cannot reach the floor', () => {
    const giant: AnthropicModelRow = {
      ...haiku,
      models: ['giant'],
      effectiveFloorTokens: 50_000,
      paddingTarget: { min: 60_000, max: 70_000 },
    };
    const plan = planPadding({ mode: 'always', prefixTokens: 265, model: giant });
    expect(plan.decision.applied).toBe(false);
    expect(plan.decision.reason).toMatch(/below the 50000-token floor/);
  });

  it('is deterministic: same inputs, same blocks and bytes', () => {
    const input = { mode: 'always' as const, prefixTokens: 900, model: haiku, skills: [skill('b', 50), skill('a', 70)] };
    expect(planPadding(input)).toEqual(planPadding({ ...input, skills: [...input.skills].reverse() }));
  });

  it('rejects bad options with a ValidationError naming the option', () => {
    expect(() => planPadding({ mode: 'auto', prefixTokens: 1, model: haiku, expectedRequests: 0 })).toThrowError(
      /options\.expectedRequests/,
    );
    expect(() =>
      planPadding({ mode: 'auto', prefixTokens: 1, model: haiku, skills: [skill('a', 1), skill('a', 2)] }),
    ).toThrowError(/options\.skills\[1\]\.name/);
  });

  it('planRequestPadding gives the decision the adapter records', () => {
    const request = plainChat({ model: 'claude-haiku-4-5' });
    const options = { padding: 'always' as const, skills: [skill('alpha', 40)] };
    const plan = planRequestPadding(request, options);
    const result = convertToAnthropic(request, options);
    expect(result.metadata.padding).toEqual(plan.decision);
    expect(result.metadata.paddingBlocks).toEqual(plan.blocks);
    expect(result.metadata.breakpoints.find((breakpoint) => breakpoint.reason === 'global-static')?.path).toBe(
      `padding[${plan.blocks.length - 1}]`,
    );
  });
});

describe('padding stays fixed within a session', () => {
  it('repeats the first decision from cacheState even after the token counter changes', () => {
    const request = plainChat({ model: 'claude-haiku-4-5' });
    const options = { padding: 'always' as const, skills: [skill('alpha', 40)] };
    const first = convertToAnthropic(request, options);
    expect(first.metadata.padding?.applied).toBe(true);
    // A re-calibrated counter that now estimates ten times more tokens: the natural prefix
    // would clear the floor and a fresh plan would not pad.
    const inflated = { ...charsPerTokenCounter(0.4), name: 'recalibrated' };
    expect(convertToAnthropic(request, { ...options, tokenCounter: inflated }).metadata.padding?.applied).toBe(false);
    const second = convertToAnthropic(request, { ...options, tokenCounter: inflated, previous: first.metadata.cacheState });
    expect(JSON.stringify(second.body.system)).toBe(JSON.stringify(first.body.system));
    expect(second.metadata.padding).toEqual(first.metadata.padding);
    expect(first.metadata.cacheState.padding).toMatchObject({ skills: ['alpha'], mode: 'always' });
  });

  it('plans afresh when a pinned skill is no longer offered', () => {
    const request = plainChat({ model: 'claude-haiku-4-5' });
    const first = convertToAnthropic(request, { padding: 'always', skills: [skill('alpha', 40)] });
    const second = convertToAnthropic(request, { padding: 'always', skills: [], previous: first.metadata.cacheState });
    expect(second.metadata.padding?.paddedSkills).toEqual([]);
  });
});

describe('operating guidelines', () => {
  const largestMinimum = Math.max(...[...ANTHROPIC_MODELS, UNKNOWN_ANTHROPIC_MODEL].map((row) => row.paddingTarget.min));

  it('clear the largest padding target minimum on their own, under the calibrated estimator and the chars/4 fallback', () => {
    expect(largestMinimum).toBe(4500);
    expect(anthropicEstimator().countText(OPERATING_GUIDELINES, 'prose')).toBeGreaterThanOrEqual(largestMinimum);
    expect(charsPerTokenCounter().countText(OPERATING_GUIDELINES, 'prose')).toBeGreaterThanOrEqual(largestMinimum);
    expect(OPERATING_GUIDELINES_SECTIONS.length).toBeGreaterThan(10);
  });

  it("padding: always with no skills pads an empty global zone over Haiku 4.5's floor (estimator)", () => {
    const plan = planPadding({ mode: 'always', prefixTokens: 0, model: haiku, counter: anthropicEstimator() });
    expect(plan.decision.applied).toBe(true);
    expect(plan.decision.prefixTokensAfter).toBeGreaterThanOrEqual(haiku.paddingTarget.min);
    expect(plan.decision.prefixTokensAfter).toBeLessThanOrEqual(haiku.paddingTarget.max);
    expect(plan.blocks.map((block) => block.source)).toEqual(['guidelines']);
  });

  it('are byte-stable (changing them re-writes every padded prefix: bump OPERATING_GUIDELINES_VERSION)', () => {
    // Version 2 added sections 26-30 so the guidelines alone clear 4,500 estimated tokens.
    expect(OPERATING_GUIDELINES_VERSION).toBe(2);
    expect(sha256(OPERATING_GUIDELINES)).toMatchInlineSnapshot(
      `"ccc79ee97793fb428308e9f3aa6227d43e9c8ddccc4b163c05882c05246e8bfd"`,
    );
  });
});
