import type { SkillStore } from './skill-store.js';

export interface DiscoveryIndexOptions {
  /** Names of skills whose bodies are already in the system prompt (pre-activated by padding). */
  preloaded?: Iterable<string>;
  /** Text placed above the list; defaults to DISCOVERY_INDEX_PREAMBLE. Empty string for none. */
  preamble?: string;
}

export const DISCOVERY_INDEX_PREAMBLE = [
  '# Skills',
  'Each line names a skill and says when it helps. Call skill_search(query) to filter this list and',
  'skill_load(name) to read a skill before you follow it. A skill marked [preloaded] is already in this',
  'system prompt under the heading "# Skill: <name>"; do not load it.',
].join('\n');

/**
 * The discovery index for the global static zone: one `- name: description` line per skill,
 * sorted by name, `- name [preloaded]: description` for pre-activated skills. A pure function
 * of the store and the preloaded set, so the bytes are the same in every process.
 *
 * @example
 * renderDiscoveryIndex(store, { preloaded: ['pdf-tools'], preamble: '' });
 * // '- git-release: Cut a release...\n- pdf-tools [preloaded]: Work with PDFs...'
 */
export function renderDiscoveryIndex(store: SkillStore, options: DiscoveryIndexOptions = {}): string {
  const preloaded = new Set(options.preloaded ?? []);
  const lines = store.skills.map(
    (skill) => `- ${skill.name}${preloaded.has(skill.name) ? ' [preloaded]' : ''}: ${oneLine(skill.description)}`,
  );
  if (lines.length === 0) return '';
  const preamble = options.preamble ?? DISCOVERY_INDEX_PREAMBLE;
  return preamble.length > 0 ? `${preamble}\n${lines.join('\n')}` : lines.join('\n');
}

/** Heading under which a pre-activated skill's body sits in the system prompt. */
export function preloadedSkillHeading(name: string): string {
  return `# Skill: ${name}`;
}

/**
 * The text padding inlines for a pre-activated skill: its heading, then its body. The
 * `skill_load` pointer for a preloaded skill refers to this heading.
 */
export function preloadedSkillSection(skill: { name: string; body: string }): string {
  return `${preloadedSkillHeading(skill.name)}\n\n${skill.body}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
