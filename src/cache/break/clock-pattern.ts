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
