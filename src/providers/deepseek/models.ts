/**
 * DeepSeek API caching facts as data [api-docs.deepseek.com/guides/kv_cache, "Cache Persistence
 * and Hit Rules", checked 2026-11-23]. Context caching on disk is on for every request and
 * cannot be steered: no markers, no TTL. Each cached prefix is a complete unit, and a later
 * request hits only by matching a whole unit. Units are persisted (1) at the end of each
 * request's input and at the end of its output, (2) where the system detects a prefix common
 * to several requests, (3) at fixed token intervals inside long inputs or outputs (the
 * interval is not documented).
 */
import { matchModelRow } from '../../model/match-model.js';

export interface DeepSeekModelRow {
  /** Model ids this row covers, matched by `matchModelRow`'s rule. */
  models: readonly string[];
  family: string;
  /** Token interval of rule (3); null because the documentation does not state it. */
  intervalTokens: number | null;
  /**
   * Whether the model thinks unless the body says otherwise (`thinking: { type }`). In thinking
   * mode the reasoning of a turn without tool calls is dropped from later requests (sent back or
   * not, it is ignored), so the end-of-output unit of such a turn, which holds that reasoning, is
   * never a prefix of the next request [api-docs.deepseek.com/guides/thinking_mode].
   */
  thinksByDefault: boolean;
  /**
   * How long an unused unit is planned to live. The documentation says only that unused
   * caches are cleared "usually within a few hours to a few days": one hour is the cautious
   * lower bound Cachet plans with.
   */
  lifetimeMs: number;
  source: string;
  checked: string;
}

const DOCS = 'api-docs.deepseek.com/guides/kv_cache (Cache Persistence and Hit Rules)';

const THINKING_DOCS =
  'api-docs.deepseek.com/guides/thinking_mode (thinking on by default; reasoning of turns without tool calls not spliced into later requests)';

export const DEEPSEEK_MODELS: readonly DeepSeekModelRow[] = [
  {
    // The non-thinking alias.
    models: ['deepseek-chat'],
    family: 'DeepSeek API',
    intervalTokens: null,
    thinksByDefault: false,
    lifetimeMs: 60 * 60_000,
    source: DOCS,
    checked: '2026-11-23',
  },
  {
    // The thinking alias, and every other DeepSeek model (thinking is on by default).
    models: ['deepseek-reasoner', 'deepseek'],
    family: 'DeepSeek API',
    intervalTokens: null,
    thinksByDefault: true,
    lifetimeMs: 60 * 60_000,
    source: `${DOCS}; ${THINKING_DOCS}`,
    checked: '2026-11-23',
  },
];

/** The row for a DeepSeek model id (`deepseek-chat`, `deepseek-reasoner`, `deepseek-v4-flash`). */
export function resolveDeepSeekModel(model: string, overrides: readonly DeepSeekModelRow[] = []): DeepSeekModelRow {
  return matchModelRow(model, [overrides, DEEPSEEK_MODELS], (row) => row.models) ?? DEEPSEEK_MODELS[0]!;
}

/**
 * Whether a chat body runs in thinking mode: its own `thinking: { type }` switch, else its
 * model's default (`thinksByDefault`).
 *
 * @example
 * deepSeekThinks({ model: 'deepseek-reasoner', messages: [] }); // true
 */
export function deepSeekThinks(body: unknown, overrides: readonly DeepSeekModelRow[] = []): boolean {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const thinking =
    typeof record.thinking === 'object' && record.thinking !== null ? (record.thinking as { type?: unknown }).type : undefined;
  if (thinking === 'enabled') return true;
  if (thinking === 'disabled') return false;
  return resolveDeepSeekModel(typeof record.model === 'string' ? record.model : '', overrides).thinksByDefault;
}
