/** A row as both drivers return it: numbers may arrive as strings (PostgreSQL BIGINT, NUMERIC). */
export type SqlRow = Record<string, unknown>;

/**
 * The one thing shared queries need from a backend: run a read query with `?` placeholders
 * (PostgreSQL runners rewrite them to `$1`, `$2`...).
 */
export interface SqlRunner {
  /** For the few expressions the two dialects spell differently (time buckets). */
  readonly dialect: 'sqlite' | 'postgres';
  all(sql: string, params: readonly unknown[]): Promise<SqlRow[]>;
}

/** Rewrite `?` placeholders to PostgreSQL's `$n`. Cachet's SQL has no `?` inside literals. */
export function toPostgresPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

export function toNumber(value: unknown): number {
  if (value === null || value === undefined) return 0;
  const result = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(result) ? result : 0;
}

export function toNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}

export function toNullableString(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
