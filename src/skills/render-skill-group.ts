import type { Skill } from './skill.js';

/**
 * One matched skill as seed 001 renders it:
 * `<skill name="..." tools="..."><description>...</description><instructions>...</instructions></skill>`.
 * Attribute values and the description are XML-escaped; in the markdown body only closing tags
 * that would end the element early are escaped, so instructions read as written.
 */
export function renderSkillElement(skill: Pick<Skill, 'name' | 'description' | 'allowedTools' | 'body'>): string {
  const tools = skill.allowedTools.join(' ');
  return (
    `<skill name="${escapeXml(skill.name)}" tools="${escapeXml(tools)}">` +
    `<description>${escapeXml(skill.description.replace(/\s+/g, ' ').trim())}</description>` +
    `<instructions>${skill.body.replace(/<\/(instructions|skill)\s*>/gi, '&lt;/$1>')}</instructions>` +
    `</skill>`
  );
}

/**
 * The one user-role group of matched skills placed before the user's own text: one element per
 * skill, in match order, separated by newlines. Empty string when nothing matched.
 *
 * @example
 * renderSkillGroup(matcher.match(userText).map((match) => match.skill));
 */
export function renderSkillGroup(skills: ReadonlyArray<Pick<Skill, 'name' | 'description' | 'allowedTools' | 'body'>>): string {
  return skills.map(renderSkillElement).join('\n');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
