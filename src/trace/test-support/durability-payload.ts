import type { UsageRecordedPayload } from '../../events/catalog.js';

/** Deterministic payload for seq `seq`, so the parent can check content as well as presence. */
export function durabilityPayload(seq: number): UsageRecordedPayload {
  return {
    turn: seq,
    step: 0,
    model: 'durability-model',
    usage: {
      uncachedInputTokens: seq,
      cacheReadTokens: seq * 10,
      cacheWrite5mTokens: seq % 7,
      cacheWrite1hTokens: 0,
      outputTokens: 1,
      reasoningTokens: 0,
      raw: { filler: 'x'.repeat(2000 + (seq % 13) * 100) },
    },
    costUsd: seq / 1000,
    uncachedCostUsd: seq / 500,
  };
}
