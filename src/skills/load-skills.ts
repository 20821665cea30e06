import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { compareCodeUnits } from './compare-code-units.js';
import { parseSkillFile } from './parse-skill-file.js';
import type { Skill, SkillRoot } from './skill.js';
import { SkillPathError } from './skill-errors.js';
import { SkillStore } from './skill-store.js';

export const SKILL_FILE_NAME = 'SKILL.md';

/**
 * Load one skill, `<root>/<directory>/SKILL.md`. Refuses (SkillPathError) a directory that is
 * absolute, climbs out with `..`, or resolves outside the root through a symbolic link.
 *
 * @example
 * const skill = await loadSkill({ path: './skills', label: 'project' }, 'pdf-tools');
 */
export async function loadSkill(root: SkillRoot, directory: string): Promise<Skill> {
  const rootPath = resolve(root.path);
  if (isAbsolute(directory) || directory.split(/[\\/]/).includes('..')) {
    throw new SkillPathError(
      rootPath,
      directory,
      'a skill directory must be a plain name inside its root (no absolute path, no "..")',
    );
  }
  const file = join(rootPath, directory, SKILL_FILE_NAME);
  await assertInsideRoot(rootPath, file);
  const text = await readFile(file, 'utf8');
  return parseSkillFile(text, { file, directoryName: basename(directory), source: root.label ?? root.path });
}

/**
 * Load every `<root>/<name>/SKILL.md` of one root, in directory-name order. Directories without
 * a SKILL.md are skipped; any file that escapes the root or breaks the format is an error. A
 * root that does not exist holds no skills, so the default `.cachet/skills` of a fresh
 * workspace needs no setup; a root that is a file is a `SkillPathError`.
 */
export async function loadSkillsFromRoot(root: SkillRoot): Promise<Skill[]> {
  const rootPath = resolve(root.path);
  const rootStat = await stat(rootPath).catch(() => null);
  if (!rootStat) return [];
  if (!rootStat.isDirectory()) throw new SkillPathError(rootPath, rootPath, 'the skill root is not a directory');
  const entries = await readdir(rootPath, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort(compareCodeUnits);
  const skills: Skill[] = [];
  for (const name of names) {
    const file = join(rootPath, name, SKILL_FILE_NAME);
    if (!(await exists(file))) continue;
    skills.push(await loadSkill(root, name));
  }
  return skills;
}

/**
 * Load every configured root into one store. Roots listed first win when two declare the same
 * skill name; the losers are listed in `store.shadowed`.
 *
 * @example
 * const store = await loadSkillStore([{ path: '.cachet/skills', label: 'project' }, { path: '/opt/skills', label: 'shared' }]);
 */
export async function loadSkillStore(roots: readonly SkillRoot[]): Promise<SkillStore> {
  const perRoot: Skill[][] = [];
  for (const root of roots) perRoot.push(await loadSkillsFromRoot(root));
  return SkillStore.fromRoots(perRoot);
}

async function assertInsideRoot(rootPath: string, file: string): Promise<void> {
  let rootReal: string;
  try {
    rootReal = await realpath(rootPath);
  } catch {
    throw new SkillPathError(rootPath, file, 'the skill root does not exist');
  }
  let fileReal: string;
  try {
    fileReal = await realpath(file);
  } catch {
    throw new SkillPathError(rootPath, file, `no ${SKILL_FILE_NAME} there`);
  }
  const inside = relative(rootReal, fileReal);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw new SkillPathError(rootPath, file, `it resolves to ${fileReal}, outside the skill root (symbolic link)`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
