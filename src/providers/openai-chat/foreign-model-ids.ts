import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { matchModelRow } from '../../model/match-model.js';

/**
 * Model ids of other vendors that reach an OpenAI adapter by mistake (a Claude id on Chat
 * Completions is refused by OpenAI, or silently served by a proxy with other cache rules).
 * Data, matched with the rule every model table uses (`matchModelRow`).
 */
export interface ForeignModelId {
  /** Ids matched as whole segments: `claude` covers `claude-sonnet-5` and `anthropic.claude-haiku-4-5`. */
  models: readonly string[];
  vendor: string;
  advice: string;
  source: string;
  checked: string;
}

export const FOREIGN_MODEL_IDS: readonly ForeignModelId[] = [
  {
    models: ['claude'],
    vendor: 'Anthropic',
    advice: 'use the anthropic adapter, or openrouter with an "anthropic/..." id',
    source: 'platform.claude.com/docs/en/about-claude/models (Claude model ids start with "claude-")',
    checked: '2026-11-23',
  },
];

/**
 * A warning when `model` is another vendor's id, or null.
 *
 * @example
 * foreignModelWarning('claude-sonnet-4-5')?.code; // 'foreign-model-id'
 */
export function foreignModelWarning(model: string, rows: readonly ForeignModelId[] = FOREIGN_MODEL_IDS): AdapterWarning | null {
  const row = matchModelRow(model, [rows], (candidate) => candidate.models);
  if (!row) return null;
  return adapterWarning(
    'foreign-model-id',
    `model "${model}" is an ${row.vendor} model id: this adapter writes OpenAI's wire format and OpenAI's cache rules; ${row.advice}`,
  );
}
