import type { BreakpointRecord } from '../events/catalog.js';

/** How long each zone's cache entry lives, as the fork's (and so the parent's) breakpoints say. */
export interface ForkCacheTtls {
  /** TTL of the static zones' entry (tools, system, session messages) and of the history's. */
  static: BreakpointRecord['ttl'];
  history: BreakpointRecord['ttl'];
}

const TTL_MS: Record<BreakpointRecord['ttl'], number> = { '5m': 300_000, '30m': 1_800_000, '1h': 3_600_000 };

/** Milliseconds an entry of this TTL lives after its last use. */
export function ttlMs(ttl: BreakpointRecord['ttl']): number {
  return TTL_MS[ttl];
}

/**
 * The TTLs of a fork's entries, read from the breakpoints its adapter placed (the parent's own,
 * since a fork is converted with the parent's options): the last static-zone marker and the
 * history marker. A zone without a marker takes the other's; none at all, the 5-minute default.
 * A conversion that throws (the summariser never throws; sending the fork falls back on its own)
 * gives the default too.
 *
 * @example
 * forkCacheTtls(() => anthropicAdapter.convertRequest(fork, { ttl: { global: '1h' } }).metadata.breakpoints);
 * // { static: '1h', history: '5m' }
 */
export function forkCacheTtls(convert: () => readonly BreakpointRecord[]): ForkCacheTtls {
  let breakpoints: readonly BreakpointRecord[];
  try {
    breakpoints = convert();
  } catch {
    breakpoints = [];
  }
  const history = breakpoints.findLast((breakpoint) => breakpoint.zone === 'history')?.ttl;
  const stable = breakpoints.findLast((breakpoint) => breakpoint.zone === 'global' || breakpoint.zone === 'session')?.ttl;
  return { static: stable ?? history ?? '5m', history: history ?? stable ?? '5m' };
}
