import type { PaddingDecision } from '../../events/catalog.js';
import { ValidationError } from '../../model/errors.js';
import type { CanonicalRequest } from '../../model/request.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { charsPerTokenCounter } from '../shared/chars-token-counter.js';
import { prefixCost } from '../shared/prefix-cost.js';
import type { CacheMultipliers } from '../shared/price-row.js';
import { type AnthropicModelRow, type AnthropicTtl, resolveAnthropicModel } from './models.js';
import { OPERATING_GUIDELINES_SECTIONS } from './operating-guidelines.js';
import type { AnthropicOptions, PaddingMode, PaddingPin, PaddingSkill } from './options.js';
import { anthropicCacheMultipliers } from './prices.js';

export type { PaddingMode, PaddingPin, PaddingSkill } from './options.js';

/** One system block the padding adds after the global system segments. */
export interface PaddingBlock {
  source: 'skill' | 'guidelines';
  /** The skill name, or `operating-guidelines`. */
  name: string;
  text: string;
  /** Estimated tokens of `text` (the figure `skill.loaded` reports as its load size). */
  tokens: number;
}

export interface PaddingPlan {
  decision: PaddingDecision;
  /** Blocks to append after the global system segments; empty when padding is not applied. */
  blocks: PaddingBlock[];
}

export interface PaddingInput {
  mode: PaddingMode;
  /** Estimated tokens of the global static prefix (global tools and global system segments). */
  prefixTokens: number;
  /** The model's row (floor and default target). */
  model: AnthropicModelRow;
  skills?: readonly PaddingSkill[];
  counter?: TokenCounter;
  /** Requests a session is expected to make; the cost model's horizon. Default 10. */
  expectedRequests?: number;
  /** Tokens each request adds to the cached prefix, for the cost model [DEFAULT_EXPECTED_GROWTH_TOKENS, 500]. */
  expectedGrowthTokens?: number;
  /** TTL of the global breakpoint: 1h entries cost 2× to write instead of 1.25×. */
  ttl?: AnthropicTtl;
  /** Overrides the model row's padding target. */
  target?: { min: number; max: number };
  /** Cache multipliers of the model [its price row's, `anthropicCacheMultipliers`]: a 0.025× read pads sooner. */
  pricing?: CacheMultipliers;
}

export const DEFAULT_EXPECTED_REQUESTS = 10;
/**
 * Prefix growth per request assumed by the padding cost model: one short reply plus the next
 * user message. Zero would assume a session that never grows, and pad prefixes that history
 * lifts over the floor after a request or two anyway (measured on the bundled workloads: padding
 * decided with zero growth cost 1.5–2.6% more than not padding on the coding and 200-turn ones).
 */
export const DEFAULT_EXPECTED_GROWTH_TOKENS = 500;

/**
 * Decide whether to pad the global static prefix up to a model's minimum cacheable prefix, and
 * with what. A pure function of its inputs: the same deployment, skills, model and options give
 * the same decision on every request, so padding never toggles within a session (and the
 * prefix stays byte-identical). Sources, in order: skill bodies by name (code-point order),
 * then whole sections of the operating guidelines, never past `target.max`.
 *
 * `auto` pads only when the cost model (`prefixCost`) says the padded prefix is cheaper over
 * `expectedRequests` than the natural one left uncached; `always` pads whenever the prefix is
 * below the floor and the sources can lift it over; `never` does not pad.
 *
 * @example
 * const plan = planPadding({ mode: 'auto', prefixTokens: 2_600, model: resolveAnthropicModel('claude-haiku-4-5') });
 * plan.decision.applied; // true: 4,500 tokens read at 0.1× beat 2,600 at full price after a few requests
 */
export function planPadding(input: PaddingInput): PaddingPlan {
  const counter = input.counter ?? charsPerTokenCounter();
  const floor = input.model.effectiveFloorTokens;
  const target = input.target ?? input.model.paddingTarget;
  if (!(target.min > 0 && target.max >= target.min)) {
    throw new ValidationError('options.paddingTarget', '0 < min <= max', `got ${JSON.stringify(target)}`);
  }
  const requests = input.expectedRequests ?? DEFAULT_EXPECTED_REQUESTS;
  if (!Number.isInteger(requests) || requests < 1) {
    throw new ValidationError('options.expectedRequests', 'a positive integer', `got ${String(requests)}`);
  }
  const growth = input.expectedGrowthTokens ?? DEFAULT_EXPECTED_GROWTH_TOKENS;
  if (!(Number.isFinite(growth) && growth >= 0)) {
    throw new ValidationError('options.expectedGrowthTokens', 'a non-negative number', `got ${String(growth)}`);
  }
  const names = new Set<string>();
  (input.skills ?? []).forEach((skill, index) => {
    if (names.has(skill.name))
      throw new ValidationError(`options.skills[${index}].name`, 'a unique skill name', `${skill.name} repeats`);
    names.add(skill.name);
  });
  const before = input.prefixTokens;
  const decision = (applied: boolean, reason: string, after = before, skills: string[] = []): PaddingDecision => ({
    applied,
    mode: input.mode,
    reason,
    prefixTokensBefore: before,
    prefixTokensAfter: after,
    floorTokens: floor,
    paddedSkills: skills,
  });

  if (input.mode === 'never') return { decision: decision(false, 'padding disabled (never)'), blocks: [] };
  if (before >= floor) {
    return { decision: decision(false, `prefix ${before} tokens already at or above the ${floor}-token floor`), blocks: [] };
  }

  const blocks = chooseBlocks(before, target, input.skills ?? [], counter);
  const after = before + blocks.reduce((sum, block) => sum + block.tokens, 0);
  const skillNames = blocks.filter((block) => block.source === 'skill').map((block) => block.name);
  if (after < floor) {
    return {
      decision: decision(false, `padding sources reach only ${after} tokens, below the ${floor}-token floor`),
      blocks: [],
    };
  }
  if (input.mode === 'always') {
    return {
      decision: decision(
        true,
        `padded ${before} -> ${after} tokens to clear the ${floor}-token floor (always)`,
        after,
        skillNames,
      ),
      blocks,
    };
  }

  const multipliers = input.pricing ?? anthropicCacheMultipliers(input.model.models[0] ?? '');
  const prices = { write: input.ttl === '1h' ? multipliers.write1h : multipliers.write5m, read: multipliers.read };
  const costInput = { requests, growthTokensPerRequest: growth, floorTokens: floor, prices };
  // The first request's cacheable prefix already holds one growth step (the first user input):
  // the history breakpoint covers it, so a global zone just under the floor is often cached
  // from the first request without padding.
  const unpadded = prefixCost({ ...costInput, prefixTokens: before + growth });
  const padded = prefixCost({ ...costInput, prefixTokens: after + growth });
  const horizon = `over ${requests} requests${growth > 0 ? ` growing ${growth} tokens each` : ''}`;
  if (padded < unpadded) {
    return {
      decision: decision(
        true,
        `padded ${before} -> ${after} tokens: ${round(padded)} vs ${round(unpadded)} input-token equivalents ${horizon}`,
        after,
        skillNames,
      ),
      blocks,
    };
  }
  return {
    decision: decision(
      false,
      `padding to ${after} tokens would cost ${round(padded)} vs ${round(unpadded)} input-token equivalents ${horizon}`,
    ),
    blocks: [],
  };
}

/**
 * The padding plan the Anthropic adapter will use for this request, computed from the global
 * static zone only (never history or tail), so the skills helper can emit `skill.loaded`
 * (`load_reason: "always"`) for `decision.paddedSkills` with the same answer the adapter gets.
 *
 * @example
 * const { decision, blocks } = planRequestPadding(assemble(session), { skills });
 * for (const block of blocks) if (block.source === 'skill') emitSkillLoaded(block.name, block.tokens);
 */
export function planRequestPadding(request: CanonicalRequest, options: AnthropicOptions = {}): PaddingPlan {
  const counter = options.tokenCounter ?? charsPerTokenCounter();
  const mode = options.padding ?? 'auto';
  const pin = options.previous?.padding;
  if (pin && pin.model === request.model && pin.mode === mode) {
    const replayed = replayPadding(pin, options.skills ?? [], counter);
    if (replayed) return replayed;
  }
  if (mode === 'auto' && options.breakpoints === 'none') {
    const model = resolveAnthropicModel(request.model, options.models);
    const tokens = globalPrefixTokens(request, counter);
    const decision: PaddingDecision = {
      applied: false,
      mode,
      reason: 'no cache breakpoints (breakpoints: none), so padding cannot pay off',
      prefixTokensBefore: tokens,
      prefixTokensAfter: tokens,
      floorTokens: model.effectiveFloorTokens,
      paddedSkills: [],
    };
    return { decision, blocks: [] };
  }
  return planPadding({
    mode,
    prefixTokens: globalPrefixTokens(request, counter),
    model: resolveAnthropicModel(request.model, options.models),
    skills: options.skills,
    counter,
    expectedRequests: options.expectedRequests,
    expectedGrowthTokens: options.expectedGrowthTokens,
    ttl: options.ttl?.global,
    target: options.paddingTarget,
    pricing: anthropicCacheMultipliers(request.model),
  });
}

/** Estimated tokens of the global static zone: global tools and global system segments. */
export function globalPrefixTokens(request: CanonicalRequest, counter: TokenCounter): number {
  let total = 0;
  request.tools.slice(0, request.layout.globalToolCount).forEach((tool) => {
    total += counter.countBlock(tool);
  });
  for (const segment of request.system) if (segment.zone === 'global') total += counter.countBlock(segment);
  return total;
}

/** The pin of a plan, for `AnthropicCacheState.padding`. */
export function pinPadding(plan: PaddingPlan, model: string): PaddingPin {
  const guidelines = plan.blocks.find((block) => block.source === 'guidelines')?.text;
  let sections = 0;
  if (guidelines !== undefined) {
    while (
      sections < OPERATING_GUIDELINES_SECTIONS.length &&
      OPERATING_GUIDELINES_SECTIONS.slice(0, sections).join('\n\n') !== guidelines
    ) {
      sections += 1;
    }
    if (OPERATING_GUIDELINES_SECTIONS.slice(0, sections).join('\n\n') !== guidelines) sections = 0;
  }
  return {
    model,
    mode: plan.decision.mode,
    decision: plan.decision,
    skills: plan.blocks.filter((block) => block.source === 'skill').map((block) => block.name),
    guidelineSections: sections,
  };
}

/** Rebuild a pinned plan; null when a pinned skill is no longer offered (then plan afresh). */
function replayPadding(pin: PaddingPin, skills: readonly PaddingSkill[], counter: TokenCounter): PaddingPlan | null {
  if (!pin.decision.applied) return { decision: pin.decision, blocks: [] };
  const blocks: PaddingBlock[] = [];
  for (const name of pin.skills) {
    const skill = skills.find((candidate) => candidate.name === name);
    if (!skill) return null;
    const text = skillPaddingText(skill);
    blocks.push({ source: 'skill', name, text, tokens: counter.countText(text, 'prose') });
  }
  if (pin.guidelineSections > 0) {
    const text = OPERATING_GUIDELINES_SECTIONS.slice(0, pin.guidelineSections).join('\n\n');
    blocks.push({ source: 'guidelines', name: 'operating-guidelines', text, tokens: counter.countText(text, 'prose') });
  }
  return { decision: pin.decision, blocks };
}

/** The text a padded skill contributes: its name as a heading, then its body. */
export function skillPaddingText(skill: PaddingSkill): string {
  return `# Skill: ${skill.name}\n\n${skill.body}`;
}

function chooseBlocks(
  start: number,
  target: { min: number; max: number },
  skills: readonly PaddingSkill[],
  counter: TokenCounter,
): PaddingBlock[] {
  const blocks: PaddingBlock[] = [];
  let total = start;
  const ordered = [...skills].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const skill of ordered) {
    if (total >= target.min) break;
    const text = skillPaddingText(skill);
    const tokens = counter.countText(text, 'prose');
    // A body that would overshoot the bound is skipped; a later, smaller one may still fit.
    if (total + tokens > target.max) continue;
    blocks.push({ source: 'skill', name: skill.name, text, tokens });
    total += tokens;
  }
  const sections: string[] = [];
  for (const section of OPERATING_GUIDELINES_SECTIONS) {
    if (total >= target.min) break;
    const tokens = counter.countText(`${section}\n\n`, 'prose');
    if (total + tokens > target.max) break;
    sections.push(section);
    total += tokens;
  }
  if (sections.length > 0) {
    const text = sections.join('\n\n');
    blocks.push({ source: 'guidelines', name: 'operating-guidelines', text, tokens: counter.countText(text, 'prose') });
  }
  return blocks;
}

function round(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
