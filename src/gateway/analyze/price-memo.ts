import { findPrice, type PriceRow } from '../../cache/pricing.js';
import type { ProviderId } from '../../providers/adapter.js';

/**
 * Price rows by provider and model, each looked up once: an analysis prices every request two or
 * three times, and a look-up matches the model id against the whole table. The rows (Cachet's,
 * a models file's) do not change while a capture is analysed.
 */
export class PriceMemo {
  private readonly rows = new Map<string, PriceRow | null>();
  /**
   * The last look-up, answered without building and hashing a key: a capture's requests mostly
   * name one model (the map cost about 3 µs per request, comparing two short strings much less).
   */
  private last: { provider: ProviderId; model: string; row: PriceRow | null } | null = null;

  of(provider: ProviderId, model: string): PriceRow | null {
    const last = this.last;
    if (last !== null && last.model === model && last.provider === provider) return last.row;
    const key = `${provider}\u0000${model}`;
    let row = this.rows.get(key);
    if (row === undefined) {
      row = findPrice(provider, model);
      this.rows.set(key, row);
    }
    this.last = { provider, model, row };
    return row;
  }
}
