import type { Message, ToolResultBlock } from '../model/content.js';
import type { ToolResultRef } from './history-analysis.js';
import { userInstructions } from './history-analysis.js';
import type { PipelineSessionState } from './pipeline-state.js';
import type { CriticalCarry } from './structured-summary.js';

/**
 * The critical content a summary must carry verbatim: every user instruction so far (carried
 * ones first) and the errors still active.
 */
export function criticalCarry(
  state: PipelineSessionState,
  span: readonly Message[],
  refs: readonly ToolResultRef[],
  history: readonly Message[],
  tailStart: number,
): CriticalCarry & { activeErrorRecords: Array<{ toolName: string; text: string }> } {
  // A carried error stays active until a later success of the same tool shows up.
  const succeeded = new Set(refs.filter((ref) => !ref.block.isError).map((ref) => ref.toolName));
  const errors = state.carried.activeErrors.filter((error) => !succeeded.has(error.toolName));
  for (const ref of refs) {
    if (ref.messageIndex >= tailStart || !ref.activeError) continue;
    const text = (history[ref.messageIndex]?.content[ref.blockIndex] as ToolResultBlock | undefined)?.content
      .flatMap((inner) => (inner.type === 'text' ? [inner.text] : []))
      .join('\n');
    if (text) errors.push({ toolName: ref.toolName, text });
  }
  return {
    userInstructions: [...state.carried.userInstructions, ...userInstructions(span)],
    activeErrors: errors.map((error) => `${error.toolName}: ${error.text}`),
    activeErrorRecords: errors,
  };
}
