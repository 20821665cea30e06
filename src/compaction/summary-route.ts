import { findPrice } from '../cache/pricing.js';
import type { ProviderId } from '../providers/provider-id.js';
import { type PriceRates, ratesForPrompt } from '../providers/shared/price-row.js';

/** The summary call's two ways, as the LLM summariser prices them per call. */
export interface SummaryRouteInput {
  provider: ProviderId;
  /** The session's model (the fork runs on it and reads its cache) and the auxiliary model (a fresh call). */
  mainModel: string;
  auxModel: string;
  /** Tokens of the parent's prefix the fork repeats (tools, system, history). */
  prefixTokens: number;
  /** True when the parent's last request is recent enough for its entry to be alive. */
  parentWarm: boolean;
  /**
   * Tokens of the prefix's static zones (tools, system, session messages) and whether their entry
   * is still alive when the history's is not (a 1-hour static marker) [0, false]: a cold fork
   * reads them then, and writes only the history.
   */
  staticPrefixTokens?: number;
  staticWarm?: boolean;
  /** The TTL each zone's entry is written at (`5m` at 1.25×, `1h` at 2×) [5m, 5m]. */
  writeTtls?: { static: '5m' | '30m' | '1h'; history: '5m' | '30m' | '1h' };
  /**
   * Tokens at the end of the prefix that no request has sent yet (messages appended since the
   * parent's last request) [0]: no entry holds them, so even a warm fork writes them at its
   * history breakpoint.
   */
  unsentPrefixTokens?: number;
  /** Tokens after the prefix in the fork (the instruction). */
  forkInstructionTokens: number;
  /** Tokens of the fresh call's prompt (instructions + the transcript as text). */
  freshPromptTokens: number;
  /** Output tokens either call is expected to produce. */
  expectedOutputTokens: number;
  /**
   * Thinking tokens the fork may spend on top of its reply [0]: a fork keeps the parent's thinking
   * setting (part of the messages cache key), and thinking is billed as output at the main model's
   * rate. The fresh call does not think.
   */
  forkThinkingTokens?: number;
  /** Whether each call fits its model's window. */
  forkFits: boolean;
  freshFits: boolean;
}

export interface SummaryRoute {
  /** `fork`: the main model reads the parent's cache; `fresh`: the auxiliary model pays the transcript uncached. */
  choice: 'fork' | 'fresh' | 'none';
  /** Expected cost of each way (input and output), USD; null when unpriced or when it does not fit. */
  forkCostUsd: number | null;
  freshCostUsd: number | null;
  /** Expected input cost of each way alone, USD (what the prefix read saves shows here). */
  forkInputCostUsd: number | null;
  freshInputCostUsd: number | null;
  reason: string;
}

const perToken = (rate: number) => rate / 1e6;

/**
 * Fork on the main model or call the auxiliary model fresh, by expected cost. A warm fork pays
 * the prefix at the main model's read rate (Sonnet 4.5: 0.1 × $3 = $0.30/MTok, below a fresh
 * Haiku 4.5 input at $1/MTok), except the messages no request has sent yet, which it writes; a
 * cold one writes it all (the fork's history breakpoint) at the 5-minute write rate. The fresh call pays its whole prompt at the auxiliary input rate. Output
 * is priced at each model's own rate, and the fork's thinking (a thinking parent's fork thinks
 * too) at the main model's output rate. Unpriced models: fork when warm, else fresh.
 *
 * @example
 * chooseSummaryRoute({ provider: 'anthropic', mainModel: 'claude-sonnet-4-5', auxModel: 'claude-haiku-4-5',
 *   prefixTokens: 120_000, parentWarm: true, forkInstructionTokens: 300, freshPromptTokens: 110_000,
 *   expectedOutputTokens: 1_000, forkFits: true, freshFits: true }).choice; // 'fork'
 */
export function chooseSummaryRoute(input: SummaryRouteInput): SummaryRoute {
  const mainRow = findPrice(input.provider, input.mainModel);
  const auxRow = findPrice(input.provider, input.auxModel);
  const forkPrompt = input.prefixTokens + input.forkInstructionTokens;
  const forkInput = (rates: PriceRates) =>
    forkPrefixCost(input, rates) + input.forkInstructionTokens * perToken(rates.inputPerMTok);
  const forkRates = mainRow ? ratesForPrompt(mainRow, forkPrompt) : null;
  const freshRates = auxRow ? ratesForPrompt(auxRow, input.freshPromptTokens) : null;
  const forkInputCostUsd = forkRates && input.forkFits ? forkInput(forkRates) : null;
  const freshInputCostUsd = freshRates && input.freshFits ? input.freshPromptTokens * perToken(freshRates.inputPerMTok) : null;
  const forkOutputTokens = input.expectedOutputTokens + (input.forkThinkingTokens ?? 0);
  const forkCostUsd =
    forkRates && forkInputCostUsd !== null ? forkInputCostUsd + forkOutputTokens * perToken(forkRates.outputPerMTok) : null;
  const freshCostUsd =
    freshRates && freshInputCostUsd !== null
      ? freshInputCostUsd + input.expectedOutputTokens * perToken(freshRates.outputPerMTok)
      : null;
  const priced = { forkCostUsd, freshCostUsd, forkInputCostUsd, freshInputCostUsd };
  if (!input.forkFits && !input.freshFits) return { choice: 'none', ...priced, reason: 'neither call fits its window' };
  if (!input.forkFits) return { choice: 'fresh', ...priced, reason: 'the fork does not fit the main model window' };
  if (!input.freshFits) return { choice: 'fork', ...priced, reason: 'the fresh call does not fit the auxiliary window' };
  if (forkCostUsd === null || freshCostUsd === null) {
    return input.parentWarm
      ? { choice: 'fork', ...priced, reason: 'unpriced: the parent cache is warm, so the fork reads it' }
      : { choice: 'fresh', ...priced, reason: 'unpriced: the parent cache is cold, so nothing is read' };
  }
  const thinking = input.forkThinkingTokens ? ` (${input.forkThinkingTokens} thinking tokens included)` : '';
  return forkCostUsd <= freshCostUsd
    ? { choice: 'fork', ...priced, reason: `the fork costs ${usd(forkCostUsd)}${thinking} against ${usd(freshCostUsd)} fresh` }
    : {
        choice: 'fresh',
        ...priced,
        reason: `the fresh call costs ${usd(freshCostUsd)} against ${usd(forkCostUsd)} for a fork${thinking}`,
      };
}

/**
 * What the fork pays for the parent's prefix. Warm: a read, except the messages no request has
 * sent yet, written at the history's TTL. Cold: the history written at its TTL, and the static
 * zones read when their (longer-lived) entry is still alive, else written at their TTL.
 */
function forkPrefixCost(input: SummaryRouteInput, rates: PriceRates): number {
  const write = (ttl: '5m' | '30m' | '1h' | undefined) =>
    perToken(ttl === '1h' ? rates.cacheWrite1hPerMTok : rates.cacheWrite5mPerMTok);
  const read = perToken(rates.cacheReadPerMTok);
  if (input.parentWarm) {
    const unsent = Math.min(input.unsentPrefixTokens ?? 0, input.prefixTokens);
    return (input.prefixTokens - unsent) * read + unsent * write(input.writeTtls?.history);
  }
  const stable = Math.min(input.staticPrefixTokens ?? 0, input.prefixTokens);
  const staticRate = input.staticWarm ? read : write(input.writeTtls?.static);
  return stable * staticRate + (input.prefixTokens - stable) * write(input.writeTtls?.history);
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}
