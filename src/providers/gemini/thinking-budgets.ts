import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { matchModelRow } from '../../model/match-model.js';

/** The thinking budgets a Gemini model accepts (`thinkingConfig.thinkingBudget`; -1, dynamic, everywhere). */
export interface GeminiThinkingBudgetRow {
  models: readonly string[];
  /** Smallest budget above 0. */
  min: number;
  max: number;
  /** Whether 0 (thinking off) is accepted. */
  canDisable: boolean;
  source: string;
  checked: string;
}

const SOURCE = 'ai.google.dev/gemini-api/docs/thinking (thinking budgets by model)';

/**
 * Budget ranges of the 2.5 models, which refuse a budget outside them with a 400 (2.5 Pro cannot
 * turn thinking off). Later models take `thinkingLevel`; their budgets are not checked here.
 */
export const GEMINI_THINKING_BUDGETS: readonly GeminiThinkingBudgetRow[] = [
  { models: ['gemini-2.5-pro'], min: 128, max: 32_768, canDisable: false, source: SOURCE, checked: '2026-11-28' },
  { models: ['gemini-2.5-flash'], min: 1, max: 24_576, canDisable: true, source: SOURCE, checked: '2026-11-28' },
  { models: ['gemini-2.5-flash-lite'], min: 512, max: 24_576, canDisable: true, source: SOURCE, checked: '2026-11-28' },
];

/**
 * A session's thinking budget (0 = off) as the model accepts it: a budget sized for another
 * provider (Anthropic's 32,000 on 2.5 Flash) or thinking turned off where it cannot be (2.5 Pro)
 * is moved to the nearest budget the model takes, with a warning, instead of a refused request.
 *
 * @example
 * geminiThinkingBudget('gemini-2.5-pro', 0, []); // 128
 */
export function geminiThinkingBudget(model: string, budget: number, warnings: AdapterWarning[]): number {
  const row = matchModelRow(model, [GEMINI_THINKING_BUDGETS], (entry) => entry.models);
  if (!row || budget < 0) return budget;
  let accepted = budget;
  if (budget === 0) accepted = row.canDisable ? 0 : row.min;
  else accepted = Math.min(row.max, Math.max(row.min, budget));
  if (accepted !== budget) {
    const what = budget === 0 ? 'thinking off' : `a thinking budget of ${budget}`;
    warnings.push(
      adapterWarning(
        'thinking-budget-clamped',
        `params.thinking: ${model} does not take ${what} (budgets ${row.canDisable ? '0 or ' : ''}${row.min}–${row.max}); sent ${accepted}`,
      ),
    );
  }
  return accepted;
}
