import { fileURLToPath } from 'node:url';
import { parseSkillFile } from '../parse-skill-file.js';
import type { Skill } from '../skill.js';
import { SkillStore } from '../skill-store.js';

/** Test helpers: paths of the fixture roots and a builder for in-memory skills. */
export const FIXTURE_SKILLS_ROOT = fileURLToPath(new URL('./skills', import.meta.url));
export const FIXTURE_MALFORMED_ROOT = fileURLToPath(new URL('./malformed', import.meta.url));

/** A skill parsed from generated SKILL.md text; `bodyChars` pads the body to a size. */
export function makeSkill(
  name: string,
  options: { description?: string; body?: string; bodyChars?: number; triggers?: string[]; tools?: string } = {},
): Skill {
  let body = options.body ?? `# ${name}\n\nInstructions for ${name}.`;
  if (options.bodyChars !== undefined) {
    const line = `Step for ${name}: follow the documented procedure carefully and report the result.\n`;
    body = `${body}\n${line.repeat(Math.ceil(options.bodyChars / line.length))}`.slice(0, options.bodyChars);
  }
  const triggers = options.triggers
    ? `metadata:\n  triggers:\n${options.triggers.map((trigger) => `    - ${trigger}`).join('\n')}\n`
    : '';
  const tools = options.tools ? `allowed-tools: ${options.tools}\n` : '';
  const text = `---\nname: ${name}\ndescription: ${options.description ?? `Skill ${name} for tests.`}\n${tools}${triggers}---\n\n${body}\n`;
  return parseSkillFile(text, { file: `mem/${name}/SKILL.md`, directoryName: name, source: 'test' });
}

export function makeStore(skills: Skill[]): SkillStore {
  return SkillStore.of(skills);
}
