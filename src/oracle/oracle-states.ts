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
  /**
   * What the last request of each other model the session ran on left cached (A → B: A's entries,
   * which the provider keeps while B runs and a return to A reads). Sorted by model.
   */
  parked: Parked[];
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

/** The entries a model's last request left when the session moved to another model. */
export interface Parked {
  model: string;
  /** The request that left them, and its tail scope. */
  index: number;
  scope: TailScope;
  cached: number;
  cachedLong: number;
}

export function parkedKey(parked: readonly Parked[]): string {
  return parked.map((entry) => `${entry.model}@${entry.index}/${entry.scope}/${entry.cached}/${entry.cachedLong}`).join(',');
}

/** `other` keeps at least what `parked` keeps: the same models' entries, each as long. */
function parkedCovers(other: readonly Parked[], parked: readonly Parked[]): boolean {
  if (other.length !== parked.length) return false;
  return parked.every((entry, index) => {
    const kept = other[index] as Parked;
    return (
      kept.model === entry.model &&
      kept.index === entry.index &&
      kept.scope === entry.scope &&
      kept.cached >= entry.cached &&
      kept.cachedLong >= entry.cachedLong
    );
  });
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

/** Keep, for each (scope, cached, cachedLong, explicit cache, parked entries), the cheapest state, and drop states another beats on every count. */
export function prune(states: State[]): State[] {
  const byKey = new Map<string, State>();
  for (const state of states) {
    const parked = parkedKey(state.parked);
    const key = `${state.scope}/${state.cached}/${state.cachedLong}/${state.carried}/${state.explicit?.key ?? ''}/${parked}`;
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
        parkedCovers(other.parked, state.parked) &&
        other.carried <= state.carried &&
        other.cost <= state.cost &&
        other.cached >= state.cached &&
        other.cachedLong >= state.cachedLong,
    );
    if (!dominated) kept.push(state);
  }
  return kept;
}
