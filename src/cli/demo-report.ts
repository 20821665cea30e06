import type { MissCause, SimulationResult } from '../simulate/simulate-workload.js';
import { formatCount, formatPercent, formatSaving, formatTable, formatUsd } from './format-table.js';
import { formatRegret } from './simulation-report.js';

/** Printed once above the demo's tables: what the strategies and columns mean. */
export const DEMO_LEGEND = [
  'How to read the tables (simulated offline against each provider’s cache rules; no API key, no network):',
  '  naive    rebuilds the system prompt every request with the time, recall and matched skills inside it',
  '  markers  what common harnesses do: a static system prompt, volatile text after it, cache markers on the last messages',
  '  cachet   Cachet’s four zones (global, session, history, turn tail) with its breakpoints, TTL and padding',
  '  read share = input tokens read from the cache · of ideal = cache reads against the most any layout could read',
  '  vs naive / vs uncached = cost change against the naive strategy and against sending everything uncached',
].join('\n');

/**
 * The demo's table for one workload: a row per strategy. Savings compare cost with naive's
 * and with the same requests uncached; for local engines (no per-token price) they compare the
 * prompt tokens the engine had to process.
 */
export function demoTable(results: readonly SimulationResult[]): string {
  const naive = results.find((result) => result.strategy === 'naive');
  const rows = results.map((result) => {
    const totals = result.totals;
    const spend = spendOf(result);
    return [
      result.strategy,
      formatCount(result.requests.length),
      formatCount(totals.inputTokens),
      formatPercent(totals.readShare),
      totals.idealCacheReadTokens === 0 ? '—' : formatPercent(totals.efficiency),
      result.priced ? formatUsd(totals.costUsd) : `${formatCount(totals.inputTokens - totals.cacheReadTokens)} tok`,
      naive ? formatSaving(spend, spendOf(naive)) : '—',
      formatSaving(spend, result.priced ? totals.uncachedCostUsd : totals.inputTokens),
      formatRegret(totals.regret),
    ];
  });
  const oracle = results[0]?.totals;
  if (oracle) {
    const oracleSpend = oracle.oracleCostUsd ?? oracle.oracleProcessedTokens;
    rows.push([
      'oracle',
      formatCount(results[0]?.requests.length ?? 0),
      '',
      '',
      '',
      oracle.oracleCostUsd === null ? `${formatCount(oracle.oracleProcessedTokens)} tok` : formatUsd(oracle.oracleCostUsd),
      naive ? formatSaving(oracleSpend, spendOf(naive)) : '—',
      '',
      '+0.0%',
    ]);
  }
  const costHeader = results.some((result) => result.priced) ? 'cost' : 'processed';
  const table = formatTable(
    ['strategy', 'requests', 'input tokens', 'read share', 'of ideal', costHeader, 'vs naive', 'vs uncached', 'regret'],
    rows,
  );
  return `${table}${pingLine(results)}`;
}

/** Keep-alive pings each strategy sent (in its cost), and the oracle's: a line under the table when any pinged. */
function pingLine(results: readonly SimulationResult[]): string {
  const oraclePings = results[0]?.oracle.requests.reduce((sum, request) => sum + request.pings, 0) ?? 0;
  const pinging = results.filter((result) => result.totals.pings > 0);
  if (pinging.length === 0 && oraclePings === 0) return '';
  const parts = pinging.map((result) => `${result.strategy} ${result.totals.pings} (${formatUsd(result.totals.pingCostUsd)})`);
  return `\nkeep-alive pings (in cost): ${[...parts, `oracle ${oraclePings}`].join(', ')}`;
}

/** One line: what Cachet saves and why the others lose. */
export function demoVerdict(results: readonly SimulationResult[]): string {
  const cachet = results.find((result) => result.strategy === 'cachet');
  if (!cachet) return '';
  const others = results.filter((result) => result !== cachet);
  const unit = cachet.priced ? '' : ' prompt processing';
  const comparisons = others.map((other) => savingWords(spendOf(cachet), spendOf(other), other.strategy)).join(' and ');
  const reasons = others
    .map((other) => {
      const cause = topMissCause(other);
      return cause ? `${other.strategy} loses most to ${describeCause(cause)}` : null;
    })
    .filter(Boolean)
    .join('; ');
  const padding = cachet.requests.at(-1)?.paddingReason;
  const paddingNote = cachet.totals.cacheReadTokens === 0 && padding ? ` Padding decision: ${padding}.` : '';
  const limit =
    cachet.totals.idealCacheReadTokens === 0
      ? 'with nothing reusable to read'
      : `reading ${formatPercent(cachet.totals.efficiency)} of the physical limit`;
  const regret = cachet.totals.regret === null ? '' : `, ${formatRegret(cachet.totals.regret)} over the hindsight oracle`;
  return `Verdict: Cachet${unit} costs ${comparisons}, ${limit}${regret}${reasons ? ` (${reasons})` : ''}.${paddingNote}`;
}

function spendOf(result: SimulationResult): number {
  return result.priced ? result.totals.costUsd : result.totals.inputTokens - result.totals.cacheReadTokens;
}

function savingWords(cost: number, reference: number, name: string): string {
  const change = reference > 0 ? cost / reference - 1 : 0;
  if (Math.abs(change) < 0.005) return `the same as ${name}`;
  return `${Math.abs(change * 100).toFixed(0)}% ${change < 0 ? 'less' : 'more'} than ${name}`;
}

/** The cause that lost the most tokens against the ideal. */
export function topMissCause(result: SimulationResult): MissCause | null {
  const lost = new Map<MissCause, number>();
  for (const request of result.requests) {
    if (!request.missCause) continue;
    const missed = Math.max(0, request.idealCacheReadTokens - request.cacheReadTokens);
    lost.set(request.missCause, (lost.get(request.missCause) ?? 0) + missed);
  }
  let best: MissCause | null = null;
  for (const [cause, tokens] of lost) if (best === null || tokens > (lost.get(best) ?? 0)) best = cause;
  return best;
}

const CAUSE_WORDS: Record<MissCause, string> = {
  clock: 'the clock in its prefix',
  'tool-order': 'tool reordering',
  'tools-changed': 'tool-list changes',
  'system-changed': 'a system prompt that changes',
  'history-edited': 'history edits',
  'model-changed': 'model switches',
  'params-changed': 'parameter changes',
  'ttl-expired': 'cache expiry in idle gaps',
  'below-minimum': 'a prefix below the minimum',
  'lookback-exceeded': 'the 20-block lookback window',
  'template-rerender': 'chat-template re-rendering',
  unknown: 'unexplained misses',
  'no-breakpoint': 'history no breakpoint covers',
  compaction: 'compaction rewrites',
  'route-changed': 'upstream route changes',
};

function describeCause(cause: MissCause): string {
  return CAUSE_WORDS[cause];
}
