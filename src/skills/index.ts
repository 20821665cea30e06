export type { ActivationBudgetLimits, ActivationOutcome, ExplicitActivation, SkillLogger } from './activation-budget.js';
export { ActivationBudget, DEFAULT_ACTIVATION_BUDGET, FREE_BUDGET_HINT } from './activation-budget.js';
export type { DiscoveryIndexOptions } from './discovery-index.js';
export {
  DISCOVERY_INDEX_PREAMBLE,
  preloadedSkillHeading,
  preloadedSkillSection,
  renderDiscoveryIndex,
} from './discovery-index.js';
export type { LoadSkillOptions } from './load-skills.js';
export { loadSkill, loadSkillStore, loadSkillsFromRoot, SKILL_FILE_NAME } from './load-skills.js';
export type { MatchedSkillsTailOptions } from './matched-skills-tail.js';
export { matchedSkillsTail } from './matched-skills-tail.js';
export type { ParseSkillOptions } from './parse-skill-file.js';
export { parseSkillFile } from './parse-skill-file.js';
export { DEFAULT_MAX_SKILL_FILE_BYTES } from './read-skill-file.js';
export { renderSkillElement, renderSkillGroup } from './render-skill-group.js';
export { restoreActivationBudget } from './restore-activation-budget.js';
export type { Skill, SkillRoot } from './skill.js';
export { DuplicateSkillError, SkillFileError, SkillFormatError, SkillPathError } from './skill-errors.js';
export type { MatchedSkill, SkillMatcherOptions } from './skill-matcher.js';
export { DEFAULT_MATCHER_OPTIONS, SkillMatcher } from './skill-matcher.js';
export { SKILL_DESCRIPTION_MAX_LENGTH, SKILL_NAME_MAX_LENGTH, skillNameProblem } from './skill-name.js';
export { SkillStore } from './skill-store.js';
export type { SkillToolResult, SkillToolSession, SkillToolsOptions } from './skill-tools.js';
export { SKILL_LOAD_TOOL, SKILL_SEARCH_TOOL, SkillTools } from './skill-tools.js';
export type { SkillMode, SkillsConfig, SkillsConfigInput } from './skills-config.js';
export { loadSkillsConfig, resolveSkillsConfig, WORKSPACE_CONFIG_FILE } from './skills-config.js';
export type { PreloadedSkill, PreloadPlanner, SkillSession, SkillSessionSetup } from './start-skill-session.js';
export { startSkillSession } from './start-skill-session.js';
export type { TextTokenCounter } from './text-token-counter.js';
export { charsPerTokenEstimate } from './text-token-counter.js';
