/**
 * The one rule every model table in Cachet matches ids with (Anthropic floors, OpenAI facts,
 * OpenRouter routes, local-engine families, tokenizers, prices): a row id matches a model id
 * when it appears in it, case-insensitively, as whole segments — at the start or right after
 * one of `- _ . : @ /` or a space, and followed by the end or one of `- _ : @ /` or a space.
 * A `.` may precede an id (`anthropic.claude-haiku-4-5`) but not follow it, because after an
 * id a dot starts a version: `gpt-5` must not cover `gpt-5.6`. So `claude-haiku-4-5` covers
 * `claude-haiku-4-5-20251001`, `anthropic.claude-haiku-4-5-20251001-v1:0` and
 * `claude-haiku-4-5@20251001`; `qwen3` covers `Qwen3-8B-Q4_K_M.gguf` and `qwen3:8b`.
 * Among the rows of one table the longest matching id wins; tables are searched in the order
 * given (caller overrides first), and the first table with a match decides.
 */
const BEFORE = /[-_.:@/\s]/;
const AFTER = /[-_:@/\s]/;

/**
 * Whether `id` matches `model` under the rule above.
 *
 * @example
 * modelIdMatches('gpt-4.1', 'gpt-4.1-mini-2025-04-14'); // true
 * modelIdMatches('gpt-4', 'gpt-4o'); // false: `o` is not a separator
 */
export function modelIdMatches(id: string, model: string): boolean {
  if (id.length === 0) return false;
  const haystack = model.toLowerCase();
  const needle = id.toLowerCase();
  let from = haystack.indexOf(needle);
  while (from !== -1) {
    const before = from === 0 ? '' : haystack[from - 1]!;
    const after = haystack[from + needle.length] ?? '';
    if ((before === '' || BEFORE.test(before)) && (after === '' || AFTER.test(after))) return true;
    from = haystack.indexOf(needle, from + 1);
  }
  return false;
}

/** Length of the longest of `ids` that matches `model`, or -1. */
function longestMatchingId(ids: readonly string[], model: string): number {
  let best = -1;
  for (const id of ids) if (id.length > best && modelIdMatches(id, model)) best = id.length;
  return best;
}

/**
 * The row for `model`: tables in order (caller rows first), longest matching id within a
 * table. `undefined` when no row of any table matches.
 *
 * @example
 * matchModelRow('claude-opus-4-5-20251101', [overrides, ANTHROPIC_MODELS], (row) => row.models);
 */
export function matchModelRow<Row>(
  model: string,
  tables: ReadonlyArray<readonly Row[]>,
  idsOf: (row: Row) => readonly string[],
): Row | undefined {
  for (const table of tables) {
    let best: Row | undefined;
    let bestLength = -1;
    for (const row of table) {
      const length = longestMatchingId(idsOf(row), model);
      if (length > bestLength) {
        best = row;
        bestLength = length;
      }
    }
    if (best !== undefined) return best;
  }
  return undefined;
}
