/** Latest time a JavaScript `Date` can hold, in ms since the epoch (±100,000,000 days). */
const MAX_DATE_MS = 8.64e15;

// Date.parse accepts many loose forms ("-1", "1e20" as a year, "March 7"); the header takes
// exactly two: whole milliseconds, or an ISO 8601 date-time.
const MILLISECONDS = /^\d{1,16}$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * The emulator's time for one request from its `x-cachet-clock` header: whole milliseconds
 * since the epoch (0 to 8.64e15) or an ISO 8601 time such as `2026-11-23T10:00:00Z`. Null for
 * anything else (negative, exponent notation, out of range, free text), which the emulator
 * answers with 400.
 *
 * @example
 * parseClockHeader('1795431600000'); // 1795431600000
 * parseClockHeader('1e20');          // null
 */
export function parseClockHeader(header: string): number | null {
  const value = header.trim();
  if (MILLISECONDS.test(value)) {
    const ms = Number(value);
    return ms <= MAX_DATE_MS ? ms : null;
  }
  if (!ISO_8601.test(value)) return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
}
