/**
 * Date- and time-like text: ISO dates and timestamps, clock times, numeric and written dates,
 * weekday names and Unix epochs in seconds or milliseconds.
 */
const CLOCK_PATTERN = new RegExp(
  [
    String.raw`\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?`,
    String.raw`\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?`,
    String.raw`\b\d{1,2}/\d{1,2}/\d{2,4}\b`,
    String.raw`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?`,
    String.raw`\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}`,
    String.raw`\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\b`,
    String.raw`\b1[6-9]\d{8}(?:\d{3})?\b`,
  ].join('|'),
  'g',
);

/** Characters either side of the divergence searched for date/time text. */
const WINDOW = 48;

/**
 * True when the first difference between two texts (at `index`) falls inside date/time-like
 * text on both sides: a clock in the prefix.
 *
 * @example
 * clockChangedAt('Now: 2026-11-21T10:00Z.', 'Now: 2026-11-21T10:05Z.', 19); // true
 */
export function clockChangedAt(before: string, after: string, index: number): boolean {
  return spansClock(before, index) && spansClock(after, index);
}

function spansClock(text: string, index: number): boolean {
  const start = Math.max(0, index - WINDOW);
  const window = text.slice(start, index + WINDOW);
  const local = index - start;
  for (const match of window.matchAll(CLOCK_PATTERN)) {
    const from = match.index ?? 0;
    if (from <= local && local < from + match[0].length) return true;
  }
  return false;
}

/**
 * Date/time text a prompt shows as "now", recognised without a second request to compare with:
 * an ISO date or timestamp, a time with seconds or am/pm, or a written date with its year —
 * and, in the same text, a word that labels it as the present (`time`, `date`, `today`, `now`,
 * `clock`, `timestamp`). Stricter than the divergence pattern above, which only ever looks at
 * text that already changed: a fixed date ("knowledge cutoff 2025-01") is not a clock.
 */
const PRESENT_CLOCK_VALUE = new RegExp(
  [
    String.raw`\d{4}-\d{2}-\d{2}`,
    String.raw`\b\d{1,2}:\d{2}:\d{2}\b`,
    String.raw`\b\d{1,2}:\d{2}\s?[AaPp]\.?[Mm]\b`,
    String.raw`\b(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}(?:st|nd|rd|th)?,? \d{4}`,
    String.raw`\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}`,
  ].join('|'),
);
const PRESENT_CLOCK_LABEL = /\b(?:time|date|today|now|clock|timestamp)\b/i;

/** True when `text` shows the current date or time (see `PRESENT_CLOCK_VALUE`): a clock, on sight. */
export function showsPresentClock(text: string): boolean {
  return PRESENT_CLOCK_VALUE.test(text) && PRESENT_CLOCK_LABEL.test(text);
}
