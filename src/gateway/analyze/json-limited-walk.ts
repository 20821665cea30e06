import { freezeOverDeepFrozen } from '../../model/freeze.js';

/** The limits past which a walk stops: the caller parses such a line whole and names its problem. */
export interface JsonLimits {
  maxNodes: number;
  maxDepth: number;
}

/**
 * Counts values and container depth of a parsed value, freezing it when asked; stops (false)
 * past the limits, so a hostile line never recurses deeply here.
 */
export class LimitedWalk {
  nodes = 0;
  deepest = -1;
  /** `baseDepth`: the depth of the value walked (an item is at depth 3); `deepest` is relative to it. */
  constructor(
    private readonly limits: JsonLimits,
    private readonly baseDepth: number,
    private readonly freeze: boolean,
  ) {}

  visit(value: unknown, depth: number): boolean {
    if (++this.nodes > this.limits.maxNodes) return false;
    // A number past a double (1e400 is Infinity): the caller parses the line whole and names it.
    if (typeof value === 'number') return Number.isFinite(value);
    if (typeof value !== 'object' || value === null) return true;
    if (depth + this.baseDepth >= this.limits.maxDepth) return false;
    if (depth > this.deepest) this.deepest = depth;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) if (!this.visit(value[index], depth + 1)) return false;
    } else {
      for (const key in value) if (!this.visit((value as Record<string, unknown>)[key], depth + 1)) return false;
    }
    // Bottom-up: its members are deep-frozen already, so memos need not walk it again.
    if (this.freeze) freezeOverDeepFrozen(value);
    return true;
  }
}
