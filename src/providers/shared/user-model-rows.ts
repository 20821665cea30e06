/**
 * Model rows a user supplies at run time (`--models-file FILE`, or the library's `models`
 * option): they override or add models without upgrading Cachet. Every model table's resolver
 * (Anthropic, Bedrock, OpenAI, Gemini floors; every price lookup) reads the active rows first,
 * so one row changes the floor, padding, TTL, tail-scope and oracle decisions and the cost
 * report alike. The rows arrive validated and complete (`src/cache/models-file.ts`).
 *
 * Active rows are process configuration, like the built-in tables: `installUserModelRows` sets
 * them for the process (the CLI), `withUserModelRows` for one synchronous call (a simulation).
 */
import type { ProviderId } from '../provider-id.js';
import type { PriceRow } from './price-row.js';

/** TTLs a models-file row may list (the Anthropic and Bedrock cache lifetimes). */
export type UserRowTtl = '5m' | '1h';

export interface UserModelRow {
  provider: ProviderId;
  /** Model id, matched by `matchModelRow`'s rule (it covers dated and suffixed ids of itself). */
  model: string;
  /** Smallest cacheable prefix in tokens, where the provider has one (Anthropic, Bedrock, OpenAI, Gemini). */
  floorTokens?: number;
  /** TTLs the model accepts (Anthropic, Bedrock). */
  ttlOptions?: readonly UserRowTtl[];
  /** Request parameters in the cache key (Anthropic rules). */
  cacheKeyParams?: readonly string[];
  /** The complete price row (`priceSource: 'models-file'`), when the row sets prices. */
  price?: PriceRow;
  source: string;
  checked: string;
  /** Where the row came from: `FILE#index`. */
  origin: string;
}

let active: readonly UserModelRow[] = [];

/** The rows in force (empty unless a models file or the `models` option set some). */
export function activeUserModelRows(): readonly UserModelRow[] {
  return active;
}

/**
 * Sets the rows for the rest of the process (the CLI's `--models-file`); returns a function
 * that restores the previous rows.
 *
 * @example
 * const restore = installUserModelRows(loadModelsFile('models.yaml').rows);
 */
export function installUserModelRows(rows: readonly UserModelRow[]): () => void {
  const previous = active;
  active = rows;
  return () => {
    active = previous;
  };
}

/**
 * Runs `run` with `rows` in force, then restores the previous rows (synchronous work only:
 * `simulateWorkload`, `modelCatalog`).
 *
 * @example
 * const result = withUserModelRows(rows, () => simulateWorkload(workload));
 */
export function withUserModelRows<T>(rows: readonly UserModelRow[] | undefined, run: () => T): T {
  if (!rows || rows.length === 0) return run();
  const restore = installUserModelRows(rows);
  try {
    return run();
  } finally {
    restore();
  }
}

const derived = new WeakMap<object, Map<string, unknown>>();

/**
 * A provider table's rows derived from the active user rows, computed once per set of active
 * rows (resolvers run on every request; the derivation must not).
 *
 * @example
 * userRowsAs('anthropic', (row) => ({ ...base, models: [row.model] }));
 */
export function userRowsAs<Row>(
  providers: readonly ProviderId[],
  key: string,
  convert: (row: UserModelRow) => Row | null,
): readonly Row[] {
  if (active.length === 0) return [];
  let cache = derived.get(active);
  if (!cache) {
    cache = new Map();
    derived.set(active, cache);
  }
  const hit = cache.get(key) as readonly Row[] | undefined;
  if (hit) return hit;
  const rows = active
    .filter((row) => providers.includes(row.provider))
    .map(convert)
    .filter((row): row is Row => row !== null);
  cache.set(key, rows);
  return rows;
}

/**
 * The active rows' prices in one vendor's price list (what `findPrice` and the Anthropic
 * multipliers read before the built-in table).
 *
 * @example
 * userPriceRows('anthropic'); // [{ vendor: 'anthropic', model: 'claude-sonnet-5-5', priceSource: 'models-file', ... }]
 */
export function userPriceRows(vendor: string): readonly PriceRow[] {
  if (active.length === 0) return [];
  const all = userRowsAs<PriceRow>([...new Set(active.map((row) => row.provider))], 'prices', (row) => row.price ?? null);
  return all.filter((row) => row.vendor === vendor);
}
