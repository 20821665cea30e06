import { findPrice } from '../cache/pricing.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';

/**
 * Why costs of `model` on `provider` cannot be priced, or null when they can. Local engines cost
 * nothing per token and are not warned about; any other model without a price row is reported
 * as unknown cost, never as free.
 */
export function unpricedModelWarning(provider: ProviderId, model: string): string | null {
  if (providerEntry(provider).route(model).rules === 'local') return null;
  const row = findPrice(provider, model);
  if (row?.priceSource === 'genai-prices') {
    return `"${model}" is not in Cachet's price tables: priced from ${row.source} (priceSource "genai-prices" in --json).`;
  }
  if (row !== null) return null;
  return `no price is known for model "${model}" on ${provider}: costs are reported as unknown (costUsd null in --json), not as free. Check the model id (a route is priced only when Cachet has its upstream's price list).`;
}
