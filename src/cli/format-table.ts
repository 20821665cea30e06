/**
 * A plain-text table: the first column left-aligned, the others right-aligned, columns sized
 * to their widest cell.
 */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '─'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function formatUsd(value: number): string {
  if (value === 0) return '$0';
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

export function formatPercent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** A saving as a signed percentage: "−85.2%" when cheaper, "+12.0%" when dearer. */
export function formatSaving(cost: number, reference: number): string {
  if (reference <= 0) return '—';
  const change = cost / reference - 1;
  if (Math.abs(change) < 0.0005) return '0.0%';
  return `${change < 0 ? '−' : '+'}${Math.abs(change * 100).toFixed(1)}%`;
}

/**
 * `value.toLocaleString('en-US')`. A whole number from 0 is grouped by hand, the same text without
 * a call into Intl: `cachet analyze` formats four counts per request row, tens of thousands on a
 * large capture.
 */
export function formatCount(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0 || Object.is(value, -0)) return value.toLocaleString('en-US');
  const digits = String(value);
  const head = ((digits.length - 1) % 3) + 1;
  let text = digits.slice(0, head);
  for (let at = head; at < digits.length; at += 3) text += `,${digits.slice(at, at + 3)}`;
  return text;
}

/** `1 request`, `2 requests`, `0 requests`: a count and its noun, plural unless the count is one. */
export function formatCountOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
