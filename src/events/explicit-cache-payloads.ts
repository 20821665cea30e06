/** Payloads of the `explicit-cache.*` events (Gemini `cachedContents`), re-exported by the catalog. */

/**
 * A provider-side cache Cachet created and pays storage for (Gemini `cachedContents`). Implicit
 * caches are not events: the provider keeps them without being asked.
 */
export interface ExplicitCacheCreatedPayload {
  provider: string;
  /** The provider's resource name (`cachedContents/…`). */
  name: string;
  model: string;
  /** Tokens the cache holds (estimated before creation; the provider's count when it reports one). */
  tokens: number;
  ttlSeconds: number;
  /** When the cache expires unless extended, ms since the epoch on the session's clock. */
  expiresAt: number;
  /** Why an explicit cache was worth it (the policy's comparison with implicit caching). */
  reason: string;
}

export interface ExplicitCacheExtendedPayload {
  provider: string;
  name: string;
  ttlSeconds: number;
  expiresAt: number;
}

export interface ExplicitCacheDeletedPayload {
  provider: string;
  name: string;
  /** `session-ended`, `stale` (tools or system changed), `policy` (implicit caching became cheaper) or `expired`. */
  reason: 'session-ended' | 'stale' | 'policy' | 'expired';
  /** Storage the cache was billed for while it lived, in token-hours. */
  tokenHours: number;
}
