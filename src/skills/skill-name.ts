/** agentskills.io: 1-64 characters, lowercase letters, digits and single hyphens between them. */
export const SKILL_NAME_MAX_LENGTH = 64;
/** agentskills.io: the description is non-empty and at most 1024 characters. */
export const SKILL_DESCRIPTION_MAX_LENGTH = 1024;

const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Why `name` breaks the agentskills.io name rules, or null when it follows them.
 *
 * @example
 * skillNameProblem('pdf-processing'); // null
 * skillNameProblem('PDF--x'); // 'must use lowercase letters, digits and hyphens only'
 */
export function skillNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > SKILL_NAME_MAX_LENGTH) return `must be at most ${SKILL_NAME_MAX_LENGTH} characters (got ${name.length})`;
  if (name.startsWith('-') || name.endsWith('-')) return 'must not start or end with a hyphen';
  if (name.includes('--')) return 'must not contain consecutive hyphens';
  if (!SKILL_NAME_PATTERN.test(name)) return 'must use lowercase letters, digits and hyphens only';
  return null;
}
