import type { Layout, TailScope } from './oracle-layouts.js';

export interface OracleRequestDecision {
  turn: number;
  step: number;
  inputTokens: number;
  readTokens: number;
  writeTokens: number;
  /** `explicit`: the request created an explicit cache (Gemini `cachedContents`) of `writeTokens` and read it. */
  writeTtl: 'short' | 'long' | 'explicit' | null;
  /** Tokens read from an explicit cache (included in `readTokens`). */
  explicitReadTokens: number;
  /** Storage of the explicit cache kept over the gap before this request (included in `cost`). */
  storageCost: number;
  /** Keep-alive pings sent in the gap before this request, and what they cost (included in `cost`). */
  pings: number;
  pingCost: number;
  tailScope: TailScope;
  cost: number;
}

export interface State {
  scope: TailScope;
  /** Cached tokens of the previous request's sequence, and the part of them with the long TTL. */
  cached: number;
  cachedLong: number;
  /** The explicit cache the run keeps (Gemini `cachedContents`), if any. */
  explicit: ExplicitCache | null;
  /**
   * Tokens of earlier turns' tails that were persisted in their turn's user message and stay in
   * history: every later request sends them again, at the read rate at the least.
   */
  carried: number;
  cost: number;
  processed: number;
  trail: Trail | null;
}

/** An explicit cache: the first `tokens` tokens of the sequence of the request that created it. */
export interface ExplicitCache {
  key: string;
  model: string;
  tokens: number;
  sequence: Layout['sequence'];
}

export interface Trail {
  decision: OracleRequestDecision;
  previous: Trail | null;
}

/** Keep, for each (scope, cached, cachedLong, explicit cache), the cheapest state, and drop states another beats on every count. */
export function prune(states: State[]): State[] {
  const byKey = new Map<string, State>();
  for (const state of states) {
    const key = `${state.scope}/${state.cached}/${state.cachedLong}/${state.carried}/${state.explicit?.key ?? ''}`;
    const known = byKey.get(key);
    if (!known || state.cost < known.cost) byKey.set(key, state);
  }
  const unique = [...byKey.values()].sort((left, right) => left.cost - right.cost);
  const kept: State[] = [];
  for (const state of unique) {
    const dominated = kept.some(
      (other) =>
        other.scope === state.scope &&
        other.explicit?.key === state.explicit?.key &&
        other.carried <= state.carried &&
        other.cost <= state.cost &&
        other.cached >= state.cached &&
        other.cachedLong >= state.cachedLong,
    );
    if (!dominated) kept.push(state);
  }
  return kept;
}
