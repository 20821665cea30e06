import type { CacheBreakCause } from '../../events/catalog.js';
import type { LoadedTokenizer } from '../../tokens/lenml-tokenizer.js';
import { clockChangedAt } from '../break/clock-pattern.js';
import { diffWireBodies } from '../break/diff-wire-bodies.js';
import { formatTokens } from './cache-verdict.js';

/** A slot as the local-engine cache model keeps it: tokens (prompt + reply), the prompt's length, the wire body. */
export interface DivergedSlot {
  tokens: readonly number[];
  promptLength: number;
  body: unknown;
}

/**
 * Explain why a prompt leaves the slot at token `common` (the wire change, the previous turn
 * tail, a clock the template prints, or a re-rendering), pushing sentences to `explanation`;
 * returns the break cause, null for an intended stop (the turn tail) or when nothing diverged.
 */
export function explainDivergence(
  at: { tokenizer: LoadedTokenizer; slot: DivergedSlot; body: unknown; prompt: readonly number[]; common: number },
  explanation: string[],
): CacheBreakCause | null {
  const { tokenizer, slot, prompt, common } = at;
  if (common >= slot.tokens.length || common >= prompt.length) return null;
  let missCause: CacheBreakCause | null = null;
  const was = tokenizer.decode(slot.tokens.slice(common, common + 12));
  const now = tokenizer.decode(prompt.slice(common, common + 12));
  explanation.push(
    `The rendered prompt diverges from the slot at token ${common}: cached ${JSON.stringify(was)}, now ${JSON.stringify(now)}.`,
  );
  const wire = diffWireBodies(slot.body, at.body, { format: 'openai-compatible' });
  if (wire.cause) {
    missCause = wire.cause;
  } else if (wire.droppedTail && tailStartsNear(tokenizer, slot.tokens, common, wire.droppedTail.text)) {
    // The previous request's turn tail is where reuse stops: intended, never persisted.
    const lostReply = Math.max(0, slot.tokens.length - slot.promptLength);
    explanation.push(
      `That is the previous request's turn tail, which is not persisted${lostReply > 0 ? `; the ${formatTokens(lostReply)} reply tokens generated after it cannot be reused either` : ''}.`,
    );
  } else if (templateClockAt(tokenizer, slot.tokens, prompt, common)) {
    missCause = 'clock';
    explanation.push('The chat template prints the date or time (`strftime_now`): the prompt changed with the clock.');
  } else {
    missCause = 'template-rerender';
    explanation.push('The wire bodies only append: the chat template re-rendered earlier history.');
  }
  return missCause;
}

/** True when the rendered prompts first differ inside date- or time-like text the template printed. */
function templateClockAt(
  tokenizer: LoadedTokenizer,
  before: readonly number[],
  after: readonly number[],
  common: number,
): boolean {
  const from = Math.max(0, common - 16);
  const was = tokenizer.decode(before.slice(from, common + 16));
  const now = tokenizer.decode(after.slice(from, common + 16));
  let index = 0;
  while (index < was.length && index < now.length && was[index] === now[index]) index++;
  return clockChangedAt(was, now, index);
}

/** True when the dropped tail's text starts within a few tokens of where reuse stopped. */
function tailStartsNear(tokenizer: LoadedTokenizer, slotTokens: readonly number[], common: number, tail: string): boolean {
  const probe = tail.trim().slice(0, 24);
  if (probe.length === 0) return false;
  const window = tokenizer.decode(slotTokens.slice(Math.max(0, common - 2), common + probe.length + 16));
  return window.includes(probe);
}

export function commonPrefixLength(left: readonly number[], right: readonly number[]): number {
  const length = Math.min(left.length, right.length);
  let index = 0;
  while (index < length && left[index] === right[index]) index++;
  return index;
}
