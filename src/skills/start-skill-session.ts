import { contextPairMessages, type WorkingMemory } from '../injection/working-memory.js';
import type { ToolDefinition } from '../model/content.js';
import { CachetError, ValidationError } from '../model/errors.js';
import type { CanonicalRequest } from '../model/request.js';
import { assemble } from '../session/assemble.js';
import { type SegmentInput, Session, type SessionOptions } from '../session/session.js';
import { ActivationBudget, type ActivationBudgetLimits, type SkillLogger } from './activation-budget.js';
import { preloadedSkillSection, renderDiscoveryIndex } from './discovery-index.js';
import { type MatchedSkillsTailOptions, matchedSkillsTail } from './matched-skills-tail.js';
import { SkillMatcher, type SkillMatcherOptions } from './skill-matcher.js';
import type { SkillStore } from './skill-store.js';
import { SKILL_LOAD_TOOL, SKILL_SEARCH_TOOL, SkillTools } from './skill-tools.js';
import type { SkillMode } from './skills-config.js';
import { charsPerTokenEstimate, type TextTokenCounter } from './text-token-counter.js';

/** A skill body the padding planner may inline, with the tokens it would cost. */
export interface PreloadedSkill {
  name: string;
  tokens: number;
}

/**
 * Decides which skill bodies padding inlines into the global prefix, from the session's
 * request (only its global zone matters) and the store's bodies in name order. Wire it to the
 * Anthropic adapter's planner so the events and the wire body agree:
 * `(request, skills) => planRequestPadding(request, { skills }).blocks.filter((b) => b.source === 'skill')`.
 */
export type PreloadPlanner = (
  request: CanonicalRequest,
  skills: ReadonlyArray<{ name: string; body: string }>,
) => readonly PreloadedSkill[];

export interface SkillSessionSetup {
  store: SkillStore;
  mode: SkillMode;
  /** on-demand mode: a fixed list of pre-activated skills (bodies inlined by padding elsewhere). */
  preloaded?: readonly string[];
  /** on-demand mode: compute the pre-activated skills from the padding plan instead. */
  planPreloaded?: PreloadPlanner;
  budget?: Partial<ActivationBudgetLimits>;
  matcher?: SkillMatcherOptions;
  /** per-turn mode: observe each match set. */
  onMatch?: MatchedSkillsTailOptions['onMatch'];
  /** Working memory restored as a `[CONTEXT]` pair in the session static zone. */
  workingMemory?: WorkingMemory | null;
  tokenCounter?: TextTokenCounter;
  logger?: SkillLogger;
}

export interface SkillSession {
  session: Session;
  mode: SkillMode;
  /** on-demand mode: the skill tools and the session's activation budget. */
  tools: SkillTools | null;
  budget: ActivationBudget | null;
  /** per-turn mode: the matcher behind the `skills` tail item. */
  matcher: SkillMatcher | null;
  /** Pre-activated skills, in name order. */
  preloaded: readonly PreloadedSkill[];
}

const SKILL_INDEX_LABEL = 'skill-index';
const MAX_PLAN_ROUNDS = 4;

/**
 * Start a session with skills in one of three modes, and working memory restored:
 *
 * - `on-demand` (seed 000 §5.2): the discovery index joins the global system, `skill_search` and
 *   `skill_load` join the global tools, loaded bodies land in history as tool results, within the
 *   activation budget. Pre-activated skills get one `skill.loaded` (`always`) event each, after
 *   `session.started` and before any `turn.started`.
 * - `per-turn` (seed 001): no index and no skill tools; a matcher puts the best skills for each
 *   user input in the turn tail, before the user's text. The prefix never changes.
 * - `off`: no skills at all.
 *
 * @example
 * const { session, tools } = startSkillSession(
 *   { id: 's1', model: 'claude-sonnet-4-5', global: { system: [{ label: 'persona', text: persona }] }, bus },
 *   { store, mode: 'on-demand', workingMemory: { sections: [{ heading: 'OPEN FILES', items: ['src/a.ts'] }] } },
 * );
 */
export function startSkillSession(options: SessionOptions, setup: SkillSessionSetup): SkillSession {
  const counter = setup.tokenCounter ?? charsPerTokenEstimate;
  const { store, mode } = setup;
  const contextPair = contextPairMessages(setup.workingMemory);
  const baseOptions: SessionOptions = {
    ...options,
    sessionStatic: {
      ...options.sessionStatic,
      messages: [...contextPair, ...(options.sessionStatic?.messages ?? [])],
    },
  };
  switch (mode) {
    case 'off':
      return { session: new Session(baseOptions), mode, tools: null, budget: null, matcher: null, preloaded: [] };
    case 'per-turn': {
      const matcher = new SkillMatcher(store, { tokenCounter: counter, ...setup.matcher });
      const tail = [matchedSkillsTail(matcher, { onMatch: setup.onMatch }), ...(options.tail ?? [])];
      return { session: new Session({ ...baseOptions, tail }), mode, tools: null, budget: null, matcher, preloaded: [] };
    }
    case 'on-demand':
      return startOnDemand(baseOptions, setup, counter);
    default: {
      const unknown: never = mode;
      throw new ValidationError('mode', '"on-demand", "per-turn" or "off"', `got ${JSON.stringify(unknown)}`);
    }
  }
}

function startOnDemand(options: SessionOptions, setup: SkillSessionSetup, counter: TextTokenCounter): SkillSession {
  const { store } = setup;
  const withSkills = (preloaded: readonly string[]): SessionOptions => {
    const index = renderDiscoveryIndex(store, { preloaded });
    const system: SegmentInput[] = [...options.global.system, ...(index ? [{ label: SKILL_INDEX_LABEL, text: index }] : [])];
    const tools: ToolDefinition[] = [...(options.global.tools ?? []), SKILL_SEARCH_TOOL, SKILL_LOAD_TOOL];
    return { ...options, global: { ...options.global, system, tools } };
  };
  const preloaded = resolvePreloaded(setup, withSkills, counter);
  const session = new Session(withSkills(preloaded.map((skill) => skill.name)));
  for (const { name, tokens } of preloaded) {
    const skill = store.get(name)!;
    session.bus?.emit('skill.loaded', session.id, session.clock(), {
      source: skill.source,
      skillId: skill.name,
      version: skill.version,
      loadTokens: tokens,
      loadReason: 'always',
      toolUseId: null,
    });
  }
  const budget = new ActivationBudget({
    limits: setup.budget,
    preloaded: preloaded.map((skill) => skill.name),
    logger: setup.logger,
  });
  const tools = new SkillTools({ store, budget, session, tokenCounter: counter });
  return { session, mode: 'on-demand', tools, budget, matcher: null, preloaded };
}

/**
 * The pre-activated set, in name order. With a planner, the plan is computed on a silent
 * session (no bus, no events) whose index already carries the annotations of the previous
 * round, until the plan repeats: the adapter, planning on the final request, gets the same set.
 */
function resolvePreloaded(
  setup: SkillSessionSetup,
  withSkills: (preloaded: readonly string[]) => SessionOptions,
  counter: TextTokenCounter,
): PreloadedSkill[] {
  const { store } = setup;
  const byName = (list: readonly PreloadedSkill[]) =>
    [...list].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  if (!setup.planPreloaded) {
    return byName(
      (setup.preloaded ?? []).map((name, index) => {
        const skill = store.get(name);
        if (!skill)
          throw new ValidationError(
            `preloaded[${index}]`,
            'the name of a skill in the store',
            `unknown skill ${JSON.stringify(name)}`,
          );
        return { name, tokens: counter.countText(preloadedSkillSection(skill), 'prose') };
      }),
    );
  }
  const bodies = store.skills.map((skill) => ({ name: skill.name, body: skill.body }));
  let current: PreloadedSkill[] = [];
  for (let round = 0; round < MAX_PLAN_ROUNDS; round++) {
    const { bus: _bus, ...silent } = withSkills(current.map((skill) => skill.name));
    const planned = byName(setup.planPreloaded(assemble(new Session(silent)), bodies)).filter((skill) => store.has(skill.name));
    if (sameNames(planned, current) && round > 0) return planned;
    current = planned;
  }
  throw new CachetError(
    'skill_preload_unstable',
    `the padding plan did not settle after ${MAX_PLAN_ROUNDS} rounds: ${current.map((skill) => skill.name).join(', ')}`,
  );
}

function sameNames(left: readonly PreloadedSkill[], right: readonly PreloadedSkill[]): boolean {
  return left.length === right.length && left.every((skill, index) => skill.name === right[index]?.name);
}
