import type { ProviderAdapter, ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';

/**
 * The adapter for a provider name, typed loosely: the simulator treats bodies as opaque JSON.
 * Local engines are simulated as llama.cpp servers (the registry's default adapter).
 */
export function adapterFor(provider: ProviderId): ProviderAdapter<unknown, Record<string, unknown>> {
  return providerEntry(provider).adapter;
}
