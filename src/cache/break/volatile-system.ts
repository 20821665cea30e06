import { sha256 } from '../../model/hash.js';
import { clockChangedAt, showsPresentClock } from './clock-pattern.js';

/**
 * Per-turn text inside a system prompt, found paragraph by paragraph: what `volatile: 'auto'`
 * (the drop-ins, `cachet proxy --plan`) moves out of the cached prefix. A paragraph is the text
 * between blank lines. Recognised on sight, from the first request: a paragraph showing the
 * present date or time (`showsPresentClock`, the break detector's `clock` cause) or opening with
 * a recalled-memory heading (`PER_TURN_HEADINGS`). Every other paragraph is volatile from the
 * first request in which it differs from the paragraphs the conversation's first request had,
 * and stays volatile (a paragraph never moves back: that would break the prefix again).
 */

/**
 * Headings that open per-turn context in the harnesses Cachet has seen (memory recall): data,
 * not logic — add a row for another harness. Matched at the start of a paragraph.
 */
export const PER_TURN_HEADINGS: readonly RegExp[] = [
  /^(?:#{1,6}\s*)?(?:relevant|recalled|retrieved)\s+memor(?:y|ies)\b/i,
  /^<(?:memories|relevant_memories|recalled_memories|memory_recall)>/i,
];

/** Why a paragraph was moved: the break detector's causes, plus a recalled-memory heading. */
export type VolatileCause = 'clock' | 'memory-recall' | 'system-changed';

export interface SystemParagraph {
  text: string;
  /** The blank-line run that followed it ('' for the last paragraph of a text). */
  separator: string;
}

export interface MovedParagraph {
  /** Index of the system text (block or message) the paragraph came from. */
  block: number;
  /** Index of the paragraph within that text. */
  paragraph: number;
  text: string;
  cause: VolatileCause;
  detectedBy: 'sight' | 'change';
  /**
   * Identity across calls: the slot (text and position among the text's volatile paragraphs)
   * and a hash of the text, so an unchanged text keeps its key and a changed one gets a new one.
   */
  key: string;
  /** The same slot held another text at the previous call, which also moved: the prefix would have broken here. */
  changedSinceMoved: boolean;
}

export interface VolatileSplit {
  /** Each system text without its volatile paragraphs ('' when nothing is left; the text itself when nothing moved). */
  texts: string[];
  moved: MovedParagraph[];
}

export interface VolatileSystemTracker {
  /** The split of one call's system texts; remembers what it needs for the next call. */
  split(texts: readonly string[]): VolatileSplit;
}

/** Paragraphs of a text, each with the blank-line run after it: joining them gives the text back. */
export function systemParagraphs(text: string): SystemParagraph[] {
  const paragraphs: SystemParagraph[] = [];
  const separator = /\n[ \t]*\n(?:[ \t]*\n)*/g;
  let from = 0;
  for (const match of text.matchAll(separator)) {
    paragraphs.push({ text: text.slice(from, match.index), separator: match[0] });
    from = match.index + match[0].length;
  }
  paragraphs.push({ text: text.slice(from), separator: '' });
  return paragraphs;
}

/** The on-sight cause of a paragraph, or null when only a change can show it is volatile. */
export function volatileOnSight(text: string): VolatileCause | null {
  if (showsPresentClock(text)) return 'clock';
  const start = text.trimStart();
  return PER_TURN_HEADINGS.some((heading) => heading.test(start)) ? 'memory-recall' : null;
}

/**
 * A tracker for one conversation (create one per conversation; it keeps the first call's
 * paragraphs and the previous call's moved ones).
 *
 * @example
 * const tracker = createVolatileSystemTracker();
 * tracker.split(['You are Forge.\n\nCurrent time: 2026-11-27T10:00Z']).texts; // ['You are Forge.']
 */
export function createVolatileSystemTracker(): VolatileSystemTracker {
  // Paragraphs (qualified by their text's index) seen unchanged at every call so far.
  let known: Set<string> | null = null;
  let previousParagraphs: string[][] = [];
  let previousMoved = new Map<string, string>();
  const qualified = (block: number, text: string) => `${block}\u0000${text}`;
  return {
    split(texts) {
      const paragraphs = texts.map(systemParagraphs);
      if (known === null) {
        known = new Set(
          paragraphs.flatMap((list, block) =>
            list.filter((entry) => volatileOnSight(entry.text) === null).map((entry) => qualified(block, entry.text)),
          ),
        );
      }
      const present = new Set(paragraphs.flatMap((list, block) => list.map((entry) => qualified(block, entry.text))));
      for (const entry of known) if (!present.has(entry)) known.delete(entry);
      const moved: MovedParagraph[] = [];
      const remainders = paragraphs.map((list, block) => {
        const previous = previousParagraphs[block] ?? [];
        const replaced = previous.filter((text) => !present.has(qualified(block, text)));
        const kept: SystemParagraph[] = [];
        let slot = 0;
        for (const [index, entry] of list.entries()) {
          const sight = volatileOnSight(entry.text);
          if ((sight === null && known?.has(qualified(block, entry.text))) || entry.text.trim() === '') {
            kept.push(entry);
            continue;
          }
          const slotKey = `${block}:${slot}`;
          const before = previousMoved.get(slotKey) ?? replaced[slot] ?? null;
          slot++;
          moved.push({
            block,
            paragraph: index,
            text: entry.text,
            cause: sight ?? changeCause(before, entry.text),
            detectedBy: sight === null ? 'change' : 'sight',
            key: `volatile:${slotKey}:${sha256(entry.text).slice(0, 12)}`,
            changedSinceMoved: previousMoved.has(slotKey) && previousMoved.get(slotKey) !== entry.text,
          });
        }
        if (kept.length === list.length) return texts[block] ?? '';
        return kept.map((entry, index) => (index < kept.length - 1 ? entry.text + entry.separator : entry.text)).join('');
      });
      previousParagraphs = paragraphs.map((list) => list.map((entry) => entry.text));
      previousMoved = new Map(moved.map((entry) => [entry.key.split(':').slice(1, 3).join(':'), entry.text]));
      return { texts: remainders, moved };
    },
  };
}

/** The break detector's reading of a changed paragraph: `clock` when the change is inside date/time text. */
function changeCause(before: string | null, after: string): VolatileCause {
  if (before === null) return 'system-changed';
  let index = 0;
  while (index < before.length && index < after.length && before.charCodeAt(index) === after.charCodeAt(index)) index++;
  return clockChangedAt(before, after, index) ? 'clock' : 'system-changed';
}
