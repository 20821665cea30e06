import { findPrice } from '../cache/pricing.js';
import { providerEntry } from '../providers/registry.js';
import type { SimulationResult } from '../simulate/simulate-workload.js';
import { formatCount, formatPercent, formatSaving, formatTable, formatUsd } from './format-table.js';

/** Local engines cost nothing per token; every other provider's model needs a price row. */
function isFree(result: SimulationResult): boolean {
  return providerEntry(result.provider).route(result.model).rules === 'local';
}

/**
 * The exact JSON object `cachet simulate --json` prints (issue 4 §5). `priced` is false when no
 * price row matched the model; costs are then `null` (unknown), except on a local engine
 * (`openai-compatible`), which costs nothing per token and reports 0.
 */
export function simulationJson(result: SimulationResult) {
  const cost = (usd: number): number | null => (result.priced || isFree(result) ? usd : null);
  return {
    workload: result.workload,
    provider: result.provider,
    model: result.model,
    strategy: result.strategy,
    priced: result.priced,
    // Whose prices: Cachet's own rows or the @pydantic/genai-prices fallback (null when unpriced).
    priceSource: result.priced ? (findPrice(result.provider, result.model)?.priceSource ?? 'cachet') : null,
    requests: result.requests.map((request) => ({
      turn: request.turn,
      step: request.step,
      inputTokens: request.inputTokens,
      cacheReadTokens: request.cacheReadTokens,
      cacheWriteTokens: request.cacheWriteTokens,
      uncachedTokens: request.uncachedTokens,
      idealCacheReadTokens: request.idealCacheReadTokens,
      costUsd: cost(request.costUsd),
      missCause: request.missCause,
    })),
    totals: {
      inputTokens: result.totals.inputTokens,
      cacheReadTokens: result.totals.cacheReadTokens,
      cacheWriteTokens: result.totals.cacheWriteTokens,
      uncachedTokens: result.totals.uncachedTokens,
      idealCacheReadTokens: result.totals.idealCacheReadTokens,
      costUsd: cost(result.totals.costUsd),
      uncachedCostUsd: cost(result.totals.uncachedCostUsd),
      readShare: result.totals.readShare,
      efficiency: result.totals.efficiency,
      ...(result.totals.uncompactedEfficiency === null ? {} : { uncompactedEfficiency: result.totals.uncompactedEfficiency }),
      oracleCostUsd: result.totals.oracleCostUsd,
      oracleProcessedTokens: result.totals.oracleProcessedTokens,
      regret: result.totals.regret,
    },
    oracle: {
      toolDeclaration: result.oracle.toolDeclaration,
      paddingTokens: result.oracle.paddingTokens,
      tailScopes: result.oracle.requests.filter((request) => request.step === 0).map((request) => request.tailScope),
      futureKnowledge: result.oracle.futureKnowledge,
    },
  };
}

/** Regret as a percentage over the oracle: `+2.3%`; `—` when there is no oracle figure. */
export function formatRegret(regret: number | null): string {
  if (regret === null) return '—';
  return `${regret < 0 ? '−' : '+'}${Math.abs(regret * 100).toFixed(1)}%`;
}

/** `cachet simulate` without `--json`: one row per request, then the totals. */
export function simulationText(result: SimulationResult): string {
  const rows = result.requests.map((request) => [
    `${request.turn}.${request.step}`,
    formatCount(request.inputTokens),
    formatCount(request.cacheReadTokens),
    formatCount(request.cacheWriteTokens),
    formatCount(request.uncachedTokens),
    formatCount(request.idealCacheReadTokens),
    result.priced ? formatUsd(request.costUsd) : '—',
    request.missCause ?? '',
  ]);
  const totals = result.totals;
  return [
    `${result.workload} · ${result.strategy} on ${result.provider} ${result.model}${result.tokensEstimated ? ' (token counts estimated: Anthropic publishes no tokenizer)' : ''}`,
    '',
    formatTable(['turn.step', 'input', 'read', 'written', 'uncached', 'ideal read', 'cost', 'miss cause'], rows),
    '',
    `requests ${result.requests.length} · input ${formatCount(totals.inputTokens)} tokens · read share ${formatPercent(totals.readShare)} · efficiency ${totals.idealCacheReadTokens === 0 ? '— (no reusable content)' : `${formatPercent(totals.efficiency)} of the physical limit`}${totals.paddingReadTokens > 0 ? ` (not counting ${formatCount(totals.paddingReadTokens)} padding tokens read)` : ''}`,
    result.priced
      ? `cost ${formatUsd(totals.costUsd)} vs ${formatUsd(totals.uncachedCostUsd)} uncached (${formatSaving(totals.costUsd, totals.uncachedCostUsd)})`
      : isFree(result)
        ? `local engine: no per-token price; ${formatCount(totals.inputTokens - totals.cacheReadTokens)} of ${formatCount(totals.inputTokens)} prompt tokens processed`
        : `cost unknown: no price for ${result.model} on ${result.provider} (not free: check the model id)`,
    `hindsight oracle ${totals.oracleCostUsd === null ? `${formatCount(totals.oracleProcessedTokens)} tokens processed` : formatUsd(totals.oracleCostUsd)} · regret ${formatRegret(totals.regret)}${totals.uncompactedEfficiency === null ? '' : ` · efficiency against the uncompacted requests ${formatPercent(totals.uncompactedEfficiency)}`}`,
  ].join('\n');
}
