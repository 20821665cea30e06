import type { BreakpointRecord, PaddingDecision } from '../events/catalog.js';
import type { AdapterWarning } from '../model/adapter-warning.js';
import type { CanonicalRequest } from '../model/request.js';
import type { Usage } from '../model/usage.js';

import type { ProviderId } from './provider-id.js';

export type { ProviderId } from './provider-id.js';

export interface Capabilities {
  provider: ProviderId;
  /** True only when caching is guaranteed at request time for this model and route. */
  promptCaching: boolean;
  /** How caching happens: explicit markers placed by the adapter, automatic, or none. */
  cachingMode: 'explicit' | 'automatic' | 'none';
  maxBreakpoints: number;
  ttlOptions: ReadonlyArray<'5m' | '1h' | 'in_memory' | '24h'>;
  /** Smallest prefix the provider caches for this model, in tokens (0 when unknown). */
  minimumPrefixTokens: number;
  /** Fields of the provider's usage payload the parser reads. */
  usageFields: readonly string[];
  /** Where each fact came from, and when it was checked. */
  source: string;
}

/** What an adapter decided while converting, for events and reports. */
export interface ConversionMetadata {
  breakpoints: BreakpointRecord[];
  padding: PaddingDecision | null;
  warnings: AdapterWarning[];
}

export interface ConversionResult<Body> {
  body: Body;
  metadata: ConversionMetadata;
}

/**
 * A provider adapter: pure functions from a canonical request to a wire body and from a
 * provider response's usage to normalized `Usage`. Adapters never touch the network.
 */
export interface ProviderAdapter<Body, Options = unknown> {
  readonly id: ProviderId;
  capabilities(model: string): Capabilities;
  convertRequest(request: CanonicalRequest, options?: Options): ConversionResult<Body>;
  parseUsage(response: unknown): Usage;
}
