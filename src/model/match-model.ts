/**
 * The one rule every model table in Cachet matches ids with (Anthropic floors, OpenAI facts,
 * OpenRouter routes, local-engine families, tokenizers, prices): a row id matches a model id
 * when it appears in it, case-insensitively, as whole segments — at the start or right after
 * one of `- _ . : @ /` or a space, and followed by the end or one of `- _ : @ /` or a space.
 * A `.` may precede an id (`anthropic.claude-haiku-4-5`) but not follow it, because after an
 * id a dot starts a version: `gpt-5` must not cover `gpt-5.6`. For the same reason a segment
 * of one or two digits right after the id is another version, never the row's: `claude-opus-4`
 * does not cover `claude-opus-4-9`, `claude-sonnet-5` not `claude-sonnet-5-5` (a date such as
 * `-20250514` or `-0613` is three digits or more and is covered). So `claude-haiku-4-5` covers
 * `claude-haiku-4-5-20251001`, `anthropic.claude-haiku-4-5-20251001-v1:0` and
 * `claude-haiku-4-5@20251001`; `qwen3` covers `Qwen3-8B-Q4_K_M.gguf` and `qwen3:8b`.
 * Among the rows of one table the longest matching id wins; tables are searched in the order
 * given (caller overrides first), and the first table with a match decides.
 *
 * Two strengths, one rule (`MatchStrength`):
 * - `family` (facts tables: floors, TTLs, breakpoints, cache-key parameters, local families):
 *   any other suffix is covered — a variant (`-mini`, `-pro`, `-codex`, `-8B-Q4_K_M.gguf`)
 *   shares its family's cache mechanics.
 * - `release` (price tables): only a release of the same model is covered — a date, a
 *   snapshot or tag (`-latest`, `-preview`, `-exp`, `-thinking`, `-v1`, `-001`, anything after
 *   `:` or `@`). A variant is another product at another price (`gpt-5.5-pro` is not
 *   `gpt-5.5`, `gemini-3-pro-image-preview` is not `gemini-3-pro`): it goes to the next table
 *   (the genai-prices fallback) and stays unpriced rather than mispriced when nobody knows it.
 */
const BEFORE = /[-_.:@/\s]/;
const AFTER = /[-_:@/\s]/;

/** How far a row id reaches into longer ids: its whole family, or releases of itself only. */
export type MatchStrength = 'family' | 'release';

/** A segment that names a release of the same model, not a variant (see `release` above). */
const RELEASE_SEGMENT = /^(?:\d{3,8}|latest|preview|exp|experimental|thinking|beta|alpha|ga|stable|v\d+)$/;
/** One or two digits: a version right after the id, a month or day after a date or tag. */
const SHORT_NUMBER = /^\d{1,2}$/;

/** Whether what follows a matched id (empty, or starting with a separator) keeps the match. */
function suffixKeeps(rest: string, strength: MatchStrength): boolean {
  const tagAt = rest.search(/[:@]/);
  const segments = (tagAt === -1 ? rest : rest.slice(0, tagAt)).split(/[-_/\s]/).filter(Boolean);
  if (segments.length > 0 && SHORT_NUMBER.test(segments[0]!)) return false;
  if (strength === 'family') return true;
  return segments.every((segment, index) => RELEASE_SEGMENT.test(segment) || (index > 0 && SHORT_NUMBER.test(segment)));
}

/**
 * The model id without its release suffix (date, snapshot, tag: what `release` strength
 * covers), or the id itself when it has none. For a second look-up in a price list that
 * names snapshots exactly: `gpt-5.2-2026-01-15` → `gpt-5.2`; `claude-opus-4-5` is unchanged
 * (`-5` is a version).
 *
 * @example
 * releaseStem('claude-sonnet-5-5-20261101'); // 'claude-sonnet-5-5'
 * releaseStem('gpt-5.2-mini-2026-01-15'); // 'gpt-5.2-mini'
 */
export function releaseStem(model: string): string {
  const tagAt = model.search(/[:@]/);
  const base = tagAt === -1 ? model : model.slice(0, tagAt);
  const segments = base.split('-');
  for (let start = 1; start < segments.length; start++) {
    const rest = segments.slice(start);
    if (!RELEASE_SEGMENT.test(rest[0]!.toLowerCase())) continue;
    if (rest.every((segment) => RELEASE_SEGMENT.test(segment.toLowerCase()) || SHORT_NUMBER.test(segment))) {
      return segments.slice(0, start).join('-');
    }
  }
  return base;
}

/**
 * Whether `id` matches `model` under the rule above.
 *
 * @example
 * modelIdMatches('gpt-4.1', 'gpt-4.1-mini-2025-04-14'); // true
 * modelIdMatches('gpt-4', 'gpt-4o'); // false: `o` is not a separator
 */
export function modelIdMatches(id: string, model: string, strength: MatchStrength = 'family'): boolean {
  if (id.length === 0) return false;
  const haystack = model.toLowerCase();
  const needle = id.toLowerCase();
  let from = haystack.indexOf(needle);
  while (from !== -1) {
    const before = from === 0 ? '' : haystack[from - 1]!;
    const after = haystack[from + needle.length] ?? '';
    const rest = haystack.slice(from + needle.length);
    if ((before === '' || BEFORE.test(before)) && (after === '' || AFTER.test(after)) && suffixKeeps(rest, strength)) {
      return true;
    }
    from = haystack.indexOf(needle, from + 1);
  }
  return false;
}

/** Length of the longest of `ids` that matches `model`, or -1. */
function longestMatchingId(ids: readonly string[], model: string, strength: MatchStrength): number {
  let best = -1;
  for (const id of ids) if (id.length > best && modelIdMatches(id, model, strength)) best = id.length;
  return best;
}

/**
 * The row for `model`: tables in order (caller rows first), longest matching id within a
 * table, at the given strength (`family` for facts, `release` for prices). `undefined` when
 * no row of any table matches.
 *
 * @example
 * matchModelRow('claude-opus-4-5-20251101', [overrides, ANTHROPIC_MODELS], (row) => row.models);
 */
export function matchModelRow<Row>(
  model: string,
  tables: ReadonlyArray<readonly Row[]>,
  idsOf: (row: Row) => readonly string[],
  strength: MatchStrength = 'family',
): Row | undefined {
  for (const table of tables) {
    let best: Row | undefined;
    let bestLength = -1;
    for (const row of table) {
      const length = longestMatchingId(idsOf(row), model, strength);
      if (length > bestLength) {
        best = row;
        bestLength = length;
      }
    }
    if (best !== undefined) return best;
  }
  return undefined;
}
