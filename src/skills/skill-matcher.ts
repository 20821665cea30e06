import MiniSearch from 'minisearch';
import { compareCodeUnits } from './compare-code-units.js';
import { renderSkillElement } from './render-skill-group.js';
import type { Skill } from './skill.js';
import type { SkillStore } from './skill-store.js';
import { charsPerTokenEstimate, type TextTokenCounter } from './text-token-counter.js';

export interface SkillMatcherOptions {
  /** At most this many skills per turn (seed 001: 3). */
  maxSkills?: number;
  /** Rendered `<skill>` elements of one turn fit this many tokens (seed 001: 16,000). */
  tokenBudget?: number;
  /** BM25+ score a skill must reach to count as relevant. */
  minScore?: number;
  tokenCounter?: TextTokenCounter;
}

export const DEFAULT_MATCHER_OPTIONS = Object.freeze({ maxSkills: 3, tokenBudget: 16_000, minScore: 5 });

export interface MatchedSkill {
  skill: Skill;
  score: number;
  /** Tokens of the rendered `<skill>` element. */
  tokens: number;
}

/** Words too common to say anything about relevance. */
const STOP_WORDS = new Set(
  'a an and are as at be but by can could do does for from has have how i if in into is it its me my no not of on or our please so some than that the their them then there these this to us use was we what when where which who why will with would you your'.split(
    ' ',
  ),
);

/**
 * Scores skills against a user input with BM25+ (MiniSearch) over name, description and
 * `metadata.triggers`, keeps those above `minScore`, best first, at most `maxSkills` whose
 * rendered elements fit `tokenBudget` (a skill that does not fit is skipped, a smaller one
 * after it may still fit). Deterministic: ties break by name.
 *
 * @example
 * const matcher = new SkillMatcher(store);
 * matcher.match('merge these two PDF files').map((m) => m.skill.name); // ['pdf-tools']
 */
export class SkillMatcher {
  readonly options: Readonly<Required<Omit<SkillMatcherOptions, 'tokenCounter'>>>;
  private readonly search: MiniSearch<IndexedSkill>;
  private readonly store: SkillStore;
  private readonly elementTokens = new Map<string, number>();

  constructor(store: SkillStore, options: SkillMatcherOptions = {}) {
    this.store = store;
    this.options = Object.freeze({
      maxSkills: options.maxSkills ?? DEFAULT_MATCHER_OPTIONS.maxSkills,
      tokenBudget: options.tokenBudget ?? DEFAULT_MATCHER_OPTIONS.tokenBudget,
      minScore: options.minScore ?? DEFAULT_MATCHER_OPTIONS.minScore,
    });
    this.search = new MiniSearch<IndexedSkill>({
      fields: ['name', 'description', 'triggers'],
      storeFields: [],
      processTerm: (term) => {
        const lower = term.toLowerCase();
        return lower.length < 2 || STOP_WORDS.has(lower) ? null : lower;
      },
      searchOptions: {
        boost: { name: 2, triggers: 3, description: 1 },
        combineWith: 'OR',
        prefix: (term) => term.length >= 4,
        fuzzy: false,
      },
    });
    this.search.addAll(
      store.skills.map((skill) => ({
        id: skill.name,
        name: skill.name,
        description: skill.description,
        triggers: skill.triggers.join('\n'),
      })),
    );
    const counter = options.tokenCounter ?? charsPerTokenEstimate;
    for (const skill of store.skills) this.elementTokens.set(skill.name, counter.countText(renderSkillElement(skill), 'prose'));
  }

  /** Every skill's score for `text`, best first (before threshold and budget). */
  score(text: string): Array<{ name: string; score: number }> {
    return this.search
      .search(text)
      .map((result) => ({ name: String(result.id), score: result.score }))
      .sort((left, right) => right.score - left.score || compareCodeUnits(left.name, right.name));
  }

  /** The skills to inject for this input. */
  match(text: string): MatchedSkill[] {
    const { maxSkills, tokenBudget, minScore } = this.options;
    const chosen: MatchedSkill[] = [];
    let used = 0;
    for (const { name, score } of this.score(text)) {
      if (chosen.length >= maxSkills || score < minScore) break;
      const skill = this.store.get(name);
      const tokens = this.elementTokens.get(name);
      if (!skill || tokens === undefined || used + tokens > tokenBudget) continue;
      chosen.push({ skill, score, tokens });
      used += tokens;
    }
    return chosen;
  }
}

interface IndexedSkill {
  id: string;
  name: string;
  description: string;
  triggers: string;
}
