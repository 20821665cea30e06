import type { DeferredToolPlacement } from '../providers/shared/deferred-tool-placement.js';

export interface DeferredToolPlacementInput {
  /** Tokens of every deferred definition together. */
  deferredTokens: number;
  /** Tokens of the definitions the session is expected to load. */
  loadedTokens: number;
  /** Times the session is expected to load tools (each load is one tools-zone change). */
  expectedLoads: number;
  /** Requests the session is expected to make. */
  expectedRequests: number;
  /** Cached prefix expected when a load happens (what a tools change re-writes). */
  expectedPrefixTokensAtLoad: number;
  /** Multipliers on the input rate: cache write and cache read. */
  pricing: { write: number; read: number };
}

export interface DeferredToolPlacementChoice {
  placement: DeferredToolPlacement;
  reason: string;
  upfrontCost: number;
  appendCost: number;
}

/**
 * Where deferred tools go on a provider that cannot defer loading, by expected cost in
 * input-rate tokens. `upfront` carries every definition in the prefix for the whole session:
 * `deferred × (write + read × (requests − 1))`. `append` pays, at each load, the re-write of
 * the prefix behind the tools zone (`(write − read) × prefix`) and carries only the loaded
 * definitions for about half the session.
 *
 * @example
 * chooseDeferredToolPlacement({ deferredTokens: 900, loadedTokens: 600, expectedLoads: 3, expectedRequests: 20,
 *   expectedPrefixTokensAtLoad: 8000, pricing: { write: 1.25, read: 0.1 } }).placement; // 'upfront'
 */
export function chooseDeferredToolPlacement(input: DeferredToolPlacementInput): DeferredToolPlacementChoice {
  const requests = Math.max(1, input.expectedRequests);
  const { write, read } = input.pricing;
  const upfrontCost = input.deferredTokens * (write + read * (requests - 1));
  const appendCost =
    input.expectedLoads * (write - read) * input.expectedPrefixTokensAtLoad +
    input.loadedTokens * (write + (read * requests) / 2);
  const figures = `upfront ${upfrontCost.toFixed(0)} vs append ${appendCost.toFixed(0)} input-rate tokens`;
  return appendCost < upfrontCost
    ? { placement: 'append', upfrontCost, appendCost, reason: `${figures}: loads re-write less than carrying every definition` }
    : {
        placement: 'upfront',
        upfrontCost,
        appendCost,
        reason: `${figures}: declaring every definition costs less than re-writing at each load`,
      };
}
