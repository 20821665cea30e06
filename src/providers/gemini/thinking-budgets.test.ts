import { describe, expect, it } from 'vitest';
import type { ThinkingConfig } from '../../model/request.js';
import { assemble } from '../../session/assemble.js';
import { fixtureSession } from '../anthropic/test-support/fixtures.js';
import { convertToGemini } from './convert-request.js';

/** Gemini's documented budget ranges (ai.google.dev thinking docs): outside them, a 400. */
const RANGES: Record<string, { min: number; max: number; canDisable: boolean }> = {
  'gemini-2.5-pro': { min: 128, max: 32_768, canDisable: false },
  'gemini-2.5-flash': { min: 1, max: 24_576, canDisable: true },
  'gemini-2.5-flash-lite': { min: 512, max: 24_576, canDisable: true },
};

function refusal(model: string, budget: number | undefined): string | null {
  const range = RANGES[model];
  if (!range || budget === undefined || budget === -1) return null;
  if (budget === 0) return range.canDisable ? null : `${model} only works in thinking mode`;
  return budget < range.min || budget > range.max ? `thinking budget ${budget} is out of range for ${model}` : null;
}

function convert(model: string, thinking: ThinkingConfig) {
  const session = fixtureSession({ model, params: { thinking } });
  session.appendUserText('Plan the migration.');
  return convertToGemini(assemble(session));
}

describe('convertToGemini: thinking budgets the model accepts', () => {
  it.each([
    ['gemini-2.5-pro', { type: 'disabled' }, 128],
    ['gemini-2.5-flash', { type: 'enabled', budgetTokens: 32_000 }, 24_576],
    ['gemini-2.5-pro', { type: 'enabled', budgetTokens: 64_000 }, 32_768],
    ['gemini-2.5-flash-lite', { type: 'enabled', budgetTokens: 100 }, 512],
  ] as const)('%s with %o sends %d (the nearest budget it accepts) and says so', (model, thinking, expected) => {
    const { body, metadata } = convert(model, thinking);
    const budget = body.config?.thinkingConfig?.thinkingBudget;
    expect(refusal(model, budget)).toBeNull();
    expect(budget).toBe(expected);
    expect(metadata.warnings.map((warning) => warning.code)).toContain('thinking-budget-clamped');
  });

  it.each([
    ['gemini-2.5-flash', { type: 'disabled' }, 0],
    ['gemini-2.5-pro', { type: 'enabled', budgetTokens: 2_048 }, 2_048],
    ['gemini-2.5-pro', { type: 'adaptive' }, -1],
    ['gemini-3-pro', { type: 'enabled', budgetTokens: 64_000 }, 64_000],
  ] as const)('%s with %o keeps %d (accepted, or not a 2.5 model)', (model, thinking, expected) => {
    const { body, metadata } = convert(model, thinking);
    expect(body.config?.thinkingConfig?.thinkingBudget).toBe(expected);
    expect(metadata.warnings.map((warning) => warning.code)).not.toContain('thinking-budget-clamped');
  });
});
