/**
 * Durations in workload files: `90s`, `5m`, `1h30m`, `250ms`, or a bare number of seconds.
 * Returns milliseconds, or null when the text is not a duration.
 *
 * @example
 * parseDuration('1h30m'); // 5_400_000
 */
export function parseDuration(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : null;
  const text = value.trim();
  if (!DURATION_PATTERN.test(text)) return null;
  let total = 0;
  for (const match of text.matchAll(PART_PATTERN)) {
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  }
  return Math.round(total);
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION_PATTERN = /^(\d+(\.\d+)?(ms|s|m|h))+$/;
const PART_PATTERN = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** `1h 05m 00s`-style text for reports. */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.round(milliseconds / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m${String(rest).padStart(2, '0')}s`;
  return `${rest}s`;
}
