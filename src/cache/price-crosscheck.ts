/**
 * The cross-check between Cachet's own price rows and the genai-prices data: every field of every
 * row both know that disagrees by more than half a cent per million tokens (or 1%). The test suite
 * requires each disagreement to be listed with its reason in `price-disagreements.json`.
 */
import type { PriceRow } from '../providers/shared/price-row.js';
import { genaiPriceRow } from './genai-prices-fallback.js';
import { PRICES } from './pricing.js';

export type ComparedField =
  | 'inputPerMTok'
  | 'cacheReadPerMTok'
  | 'cacheWrite5mPerMTok'
  | 'cacheWrite1hPerMTok'
  | 'outputPerMTok'
  | 'longPrompt';

export interface PriceDisagreement {
  /** `vendor/model/field`, the key the disagreements file lists. */
  key: string;
  cachet: number | null;
  genaiPrices: number | null;
}

const FIELDS: readonly ComparedField[] = [
  'inputPerMTok',
  'cacheReadPerMTok',
  'cacheWrite5mPerMTok',
  'cacheWrite1hPerMTok',
  'outputPerMTok',
];

function differs(a: number, b: number): boolean {
  return Math.abs(a - b) > Math.max(0.005, 0.01 * Math.max(a, b));
}

/** The fields where one of Cachet's rows and genai-prices' row of the same model disagree. */
export function compareRow(own: PriceRow, theirs: PriceRow): PriceDisagreement[] {
  const found: PriceDisagreement[] = [];
  const prefix = `${own.vendor}/${own.model}`;
  for (const field of FIELDS) {
    if (field === 'longPrompt') continue;
    const mine = own[field];
    const other = theirs[field];
    if (differs(mine, other)) found.push({ key: `${prefix}/${field}`, cachet: mine, genaiPrices: other });
  }
  const ownThreshold = own.longPrompt?.thresholdTokens ?? null;
  const theirThreshold = theirs.longPrompt?.thresholdTokens ?? null;
  if (
    ownThreshold === null || theirThreshold === null ? ownThreshold !== theirThreshold : differs(ownThreshold, theirThreshold)
  ) {
    found.push({ key: `${prefix}/longPrompt`, cachet: ownThreshold, genaiPrices: theirThreshold });
  }
  return found;
}

/**
 * Every disagreement between Cachet's rows and genai-prices, with the rows genai-prices knows
 * (by the same id) counted.
 *
 * @example
 * crossCheckPrices().disagreements.map((entry) => entry.key); // ['anthropic/claude-sonnet-5-5/cacheReadPerMTok', ...]
 */
export function crossCheckPrices(rows: readonly PriceRow[] = PRICES): {
  compared: number;
  unknownToGenaiPrices: string[];
  disagreements: PriceDisagreement[];
} {
  let compared = 0;
  const unknown: string[] = [];
  const disagreements: PriceDisagreement[] = [];
  for (const own of rows) {
    const theirs = genaiPriceRow(own.vendor, own.model);
    if (!theirs) {
      unknown.push(`${own.vendor}/${own.model}`);
      continue;
    }
    compared += 1;
    disagreements.push(...compareRow(own, theirs));
  }
  return { compared, unknownToGenaiPrices: unknown, disagreements };
}
