/**
 * The texts Cachet puts in place of content it takes out of the context. They are pure
 * functions of their inputs (no clock, no counters), so the same rewrite gives the same bytes.
 */

export const RESTORE_TOOL_NAME = 'context_restore';

export function truncationMarker(
  restoreId: string,
  keptHeadTokens: number,
  keptTailTokens: number,
  originalTokens: number,
): string {
  return (
    `\n\n[cachet: output truncated, kept the first ~${keptHeadTokens} and last ~${keptTailTokens} of ${originalTokens} tokens; ` +
    `the full output is offloaded as ${restoreId}. Call ${RESTORE_TOOL_NAME} with {"id":"${restoreId}"} to read it.]\n\n`
  );
}

export function maskPlaceholder(restoreId: string, originalTokens: number, earlierIds: readonly string[]): string {
  const earlier = earlierIds.length > 0 ? ` (full output: ${earlierIds.join(', ')})` : '';
  return `[cachet: tool output masked, ${originalTokens} tokens offloaded as ${restoreId}${earlier}. Call ${RESTORE_TOOL_NAME} with {"id":"${restoreId}"} to read it.]`;
}

export function duplicatePlaceholder(restoreId: string, laterToolUseId: string): string {
  return `[cachet: same output as the later call ${laterToolUseId}; this copy is offloaded as ${restoreId}.]`;
}

export function mediaPlaceholder(restoreId: string): string {
  return `[cachet: image removed from older history (only the latest images are kept); offloaded as ${restoreId}. Call ${RESTORE_TOOL_NAME} with {"id":"${restoreId}"} to see it.]`;
}

const ID_IN_TEXT = /ctx_[0-9a-f]{16}/g;

/** Restore ids mentioned in a text (markers of earlier truncations or masks). */
export function restoreIdsIn(text: string): string[] {
  return [...new Set(text.match(ID_IN_TEXT) ?? [])];
}

/** True when a text is one of Cachet's placeholders (it has nothing left to compress). */
export function isPlaceholder(text: string): boolean {
  return text.startsWith('[cachet: ');
}
