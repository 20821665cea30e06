/**
 * The subset of C's `strftime` that chat templates use through `strftime_now` (Llama 3.x prints
 * `Today Date: 25 Nov 2026` with `%d %b %Y`): %d %m %Y %y %b %B %H %M %S %%, in UTC, in English.
 * An engine formats its own local time; UTC and fixed English names keep Cachet's rendering the
 * same on every machine.
 *
 * @example
 * strftime('%d %b %Y', Date.UTC(2026, 10, 25)) // '25 Nov 2026'
 */
export function strftime(format: string, at: number): string {
  const date = new Date(at);
  const pad = (value: number) => String(value).padStart(2, '0');
  const fields: Record<string, string> = {
    d: pad(date.getUTCDate()),
    m: pad(date.getUTCMonth() + 1),
    Y: String(date.getUTCFullYear()),
    y: pad(date.getUTCFullYear() % 100),
    b: MONTHS[date.getUTCMonth()] as string,
    B: MONTH_NAMES[date.getUTCMonth()] as string,
    H: pad(date.getUTCHours()),
    M: pad(date.getUTCMinutes()),
    S: pad(date.getUTCSeconds()),
    '%': '%',
  };
  return String(format).replace(/%(.)/g, (whole, field: string) => fields[field] ?? whole);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
