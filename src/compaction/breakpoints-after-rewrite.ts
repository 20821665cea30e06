import type { BreakpointRecord } from '../events/catalog.js';
import type { CanonicalRequest } from '../model/request.js';

/**
 * Where the rewritten prefix should be cached: the end of the static zones (unchanged, still
 * cached), the end of the summary pair (the new stable start of history) and the last persisted
 * block (what adapters mark anyway). The adapters place the last one on every request, so the
 * whole new prefix is written on the first request after the rewrite and read from then on.
 */
export function breakpointsAfterRewrite(request: CanonicalRequest, summaryEndMessage: number): BreakpointRecord[] {
  const persisted = request.blocks.filter((block) => block.zone !== 'tail');
  const result: BreakpointRecord[] = [];
  const lastStatic = [...persisted].reverse().find((block) => block.zone === 'global' || block.zone === 'session');
  if (lastStatic) result.push({ path: lastStatic.path, zone: lastStatic.zone, ttl: '5m', reason: 'static-end' });
  if (summaryEndMessage >= 0) {
    const index = request.layout.sessionMessageCount + summaryEndMessage;
    const prefix = `messages[${index}].`;
    const last = [...persisted].reverse().find((block) => block.path.startsWith(prefix));
    if (last) result.push({ path: last.path, zone: last.zone, ttl: '5m', reason: 'summary-end' });
  }
  const last = persisted.at(-1);
  if (last && !result.some((entry) => entry.path === last.path))
    result.push({ path: last.path, zone: last.zone, ttl: '5m', reason: 'last-persisted' });
  return result;
}
