import type { HindsightRun } from './hindsight-run.js';
import { layoutFor, sum, type ToolDeclaration } from './oracle-layouts.js';
import type { OracleRules } from './oracle-rules.js';

/** Padding per model: the tokens added before the static prefix of that model's requests. */
export type PaddingPlan = ReadonlyMap<string, number>;

/** Most padding lengths tried per model; past it, an even sample of them (the search runs once per length). */
const MAX_PADDINGS = 24;

/** Most padding plans tried (one length per model, every combination); past it, each model's lengths are sampled down. */
const MAX_PADDING_PLANS = 96;

/**
 * Padding lengths worth trying for the requests on `model`: none, and each length that brings
 * some of its requests' prefix exactly to the model's minimum (the static prefix's, and every
 * such request's own, on any declaration and tail scope). Between two of them more padding only
 * costs more, so the cheapest padding is one of them: a layout that clears the minimum with more
 * content of its own (its wording, tools it declares early) is matched by the padding that
 * reaches the same point.
 */
function paddingCandidates(run: HindsightRun, model: string, rules: OracleRules, staticTokens: number): number[] {
  const minimum = rules.minimumTokens;
  if (!Number.isFinite(minimum) || minimum <= staticTokens || rules.kind === 'local') return [0];
  const lengths = new Set<number>([0, minimum - staticTokens]);
  const allDiscovered = run.requests.at(-1)?.discoveredTools ?? [];
  const declarations: ToolDeclaration[] = ['on-discovery', 'up-front', 'deferred'];
  run.requests.forEach((request, index) => {
    if (request.model !== model) return;
    for (const declaration of declarations) {
      for (const scope of ['request', 'turn'] as const) {
        const tokens = sum(layoutFor(run.requests, index, scope, declaration, allDiscovered, 0).sequence);
        if (tokens < minimum) lengths.add(minimum - tokens);
      }
    }
  });
  return sample(
    [...lengths].sort((left, right) => left - right),
    MAX_PADDINGS,
  );
}

function sample(sorted: number[], most: number): number[] {
  if (sorted.length <= most) return sorted;
  if (most <= 1) return sorted.slice(0, 1);
  return Array.from({ length: most }, (_, index) => sorted[Math.round((index * (sorted.length - 1)) / (most - 1))] as number);
}

/**
 * The padding plans worth trying: a length per model the session runs on, each from that model's
 * own candidates. Each model pads for its own minimum: a session that switches from a model with
 * a 4,096-token minimum to one with 1,024 need not carry the first model's padding (a strategy
 * drops it — the switch starts a new cache anyway — and one padded per session cost less than the
 * oracle did).
 */
export function paddingPlans(run: HindsightRun, rulesOf: (model: string) => OracleRules, staticTokens: number): PaddingPlan[] {
  const models = [...new Set(run.requests.map((request) => request.model))];
  const lengths = models.map((model) => paddingCandidates(run, model, rulesOf(model), staticTokens));
  // Too many combinations: halve the longest list until the product fits.
  const product = () => lengths.reduce((total, list) => total * list.length, 1);
  while (product() > MAX_PADDING_PLANS) {
    const longest = lengths.reduce((best, list, index) => (list.length > (lengths[best] as number[]).length ? index : best), 0);
    const list = lengths[longest] as number[];
    lengths[longest] = sample(list, Math.ceil(list.length / 2));
  }
  let plans: Array<Map<string, number>> = [new Map()];
  models.forEach((model, index) => {
    plans = plans.flatMap((plan) => (lengths[index] as number[]).map((length) => new Map(plan).set(model, length)));
  });
  return plans;
}
