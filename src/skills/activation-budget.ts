import { ToolExecutionError } from '../model/errors.js';

/** Per-session caps on explicit activations (`skill_load`); pre-activated skills never count. */
export interface ActivationBudgetLimits {
  /** Distinct skills explicitly activated per session. */
  maxExplicitActivations: number;
  /** Cumulative loaded-body tokens past which one warning is logged (no event). */
  warnTokens: number;
  /** Cumulative loaded-body tokens a session may not exceed. */
  hardCapTokens: number;
}

/** The seed spec's defaults (§5.2.4): 3 activations, warn past 10,000 tokens, hard cap 30,000. */
export const DEFAULT_ACTIVATION_BUDGET: Readonly<ActivationBudgetLimits> = Object.freeze({
  maxExplicitActivations: 3,
  warnTokens: 10_000,
  hardCapTokens: 30_000,
});

export interface SkillLogger {
  warn(message: string): void;
}

export interface ExplicitActivation {
  name: string;
  tokens: number;
  toolUseId: string | null;
}

export type ActivationOutcome =
  | { kind: 'preloaded' }
  | { kind: 'reloaded'; earlier: ExplicitActivation }
  | { kind: 'activated'; activation: ExplicitActivation };

export const FREE_BUDGET_HINT =
  'To free budget, work from the skill bodies already in earlier tool results and summarize what you still need from them in your next response: budget is released only when the session compacts a loaded body out of history. Skills marked [preloaded] in the index are already in the system prompt and cost nothing.';

/**
 * The per-session activation registry: which skills are pre-activated, which were explicitly
 * loaded and how many tokens they cost. `activate` is the only gate `skill_load` passes through.
 *
 * @example
 * const budget = new ActivationBudget({ preloaded: ['pdf-tools'] });
 * budget.activate('git-release', 1200, 'toolu_1'); // { kind: 'activated', ... }
 * budget.activate('git-release', 1200, 'toolu_2'); // { kind: 'reloaded', ... } costs nothing
 */
export class ActivationBudget {
  readonly limits: Readonly<ActivationBudgetLimits>;
  private readonly preloadedNames: ReadonlySet<string>;
  private readonly explicit = new Map<string, ExplicitActivation>();
  private readonly logger: SkillLogger;
  private warned = false;

  constructor(options: { limits?: Partial<ActivationBudgetLimits>; preloaded?: Iterable<string>; logger?: SkillLogger } = {}) {
    this.limits = Object.freeze({ ...DEFAULT_ACTIVATION_BUDGET, ...options.limits });
    this.preloadedNames = new Set(options.preloaded ?? []);
    this.logger = options.logger ?? { warn: (message) => console.warn(message) };
  }

  isPreloaded(name: string): boolean {
    return this.preloadedNames.has(name);
  }

  get preloaded(): string[] {
    return [...this.preloadedNames];
  }

  /** Explicit activations in load order. */
  get loaded(): ExplicitActivation[] {
    return [...this.explicit.values()];
  }

  get loadedTokens(): number {
    let total = 0;
    for (const activation of this.explicit.values()) total += activation.tokens;
    return total;
  }

  /**
   * Decide one `skill_load`: a pre-activated or already loaded skill costs nothing; a new one
   * must fit the count cap and the hard token cap, else ToolExecutionError (state unchanged).
   */
  activate(name: string, tokens: number, toolUseId: string | null): ActivationOutcome {
    if (this.preloadedNames.has(name)) return { kind: 'preloaded' };
    const earlier = this.explicit.get(name);
    if (earlier) return { kind: 'reloaded', earlier };
    const { maxExplicitActivations, hardCapTokens, warnTokens } = this.limits;
    const count = this.explicit.size;
    const loadedList = `Already loaded: [${[...this.explicit.keys()].join(', ')}].`;
    if (count >= maxExplicitActivations) {
      throw new ToolExecutionError(
        'skill_load',
        `activation budget exhausted: ${count} skills already activated this session (limit ${maxExplicitActivations}). ${loadedList} "${name}" was not loaded. ${FREE_BUDGET_HINT}`,
      );
    }
    const before = this.loadedTokens;
    if (before + tokens > hardCapTokens) {
      throw new ToolExecutionError(
        'skill_load',
        `activation budget exhausted: loading "${name}" (${tokens} tokens) would bring loaded skill bodies to ${before + tokens} tokens (limit ${hardCapTokens}); ${count} skills already activated this session (limit ${maxExplicitActivations}). ${loadedList} ${FREE_BUDGET_HINT}`,
      );
    }
    const activation: ExplicitActivation = { name, tokens, toolUseId };
    this.explicit.set(name, activation);
    if (!this.warned && before + tokens > warnTokens) {
      this.warned = true;
      this.logger.warn(
        `skills: loaded skill bodies reached ${before + tokens} tokens this session (warning threshold ${warnTokens}, hard cap ${hardCapTokens}); loaded: ${[...this.explicit.keys()].join(', ')}`,
      );
    }
    return { kind: 'activated', activation };
  }

  /**
   * A budget with the same activations under other limits (used when restoring a session).
   * The warning counts as given if the loaded tokens already pass the new threshold.
   */
  withLimits(limits: Partial<ActivationBudgetLimits>, logger?: SkillLogger): ActivationBudget {
    const copy = new ActivationBudget({ limits, preloaded: this.preloadedNames, logger: logger ?? this.logger });
    for (const [name, activation] of this.explicit) copy.explicit.set(name, activation);
    copy.warned = copy.loadedTokens > copy.limits.warnTokens;
    return copy;
  }

  /**
   * Give back a skill's budget once its body has left history (compaction dropped the
   * tool_result). Returns false when the skill was not explicitly loaded.
   */
  release(name: string): boolean {
    return this.explicit.delete(name);
  }
}
