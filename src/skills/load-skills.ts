import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { compareCodeUnits } from './compare-code-units.js';
import { parseSkillFile } from './parse-skill-file.js';
import { DEFAULT_MAX_SKILL_FILE_BYTES, readSkillFileInsideRoot } from './read-skill-file.js';
import type { Skill, SkillRoot } from './skill.js';
import { SkillPathError } from './skill-errors.js';
import { SkillStore } from './skill-store.js';

export const SKILL_FILE_NAME = 'SKILL.md';

export interface LoadSkillOptions {
  /** Largest SKILL.md accepted, in bytes (default 1 MiB); a larger file is a `SkillFileError`. */
  maxFileBytes?: number;
}

/**
 * Load one skill, `<root>/<directory>/SKILL.md`. Refuses (SkillPathError) a directory that is
 * absolute, climbs out with `..`, or resolves outside the root through a symbolic link, and
 * (SkillFileError) a SKILL.md that is not a regular file (a FIFO would block) or is larger
 * than `options.maxFileBytes`. The file is opened once and checked and read through that one
 * descriptor, so swapping a symbolic link in between cannot return an outside file.
 *
 * @example
 * const skill = await loadSkill({ path: './skills', label: 'project' }, 'pdf-tools');
 */
export async function loadSkill(root: SkillRoot, directory: string, options: LoadSkillOptions = {}): Promise<Skill> {
  const rootPath = resolve(root.path);
  if (!isPlainName(directory)) {
    throw new SkillPathError(
      rootPath,
      directory,
      'a skill directory must be a plain name inside its root (no path separator, no absolute path, no "..")',
    );
  }
  const file = join(rootPath, directory, SKILL_FILE_NAME);
  const text = await readSkillFileInsideRoot(rootPath, file, {
    maxBytes: options.maxFileBytes ?? DEFAULT_MAX_SKILL_FILE_BYTES,
  });
  return parseSkillFile(text, { file, directoryName: basename(directory), source: root.label ?? root.path });
}

/**
 * Load every `<root>/<name>/SKILL.md` of one root, in directory-name order. Directories without
 * a SKILL.md are skipped; any file that escapes the root or breaks the format is an error. A
 * root that does not exist holds no skills, so the default `.cachet/skills` of a fresh
 * workspace needs no setup; a root that is a file is a `SkillPathError`.
 */
export async function loadSkillsFromRoot(root: SkillRoot, options: LoadSkillOptions = {}): Promise<Skill[]> {
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
    skills.push(await loadSkill(root, name, options));
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
export async function loadSkillStore(roots: readonly SkillRoot[], options: LoadSkillOptions = {}): Promise<SkillStore> {
  const perRoot: Skill[][] = [];
  for (const root of roots) perRoot.push(await loadSkillsFromRoot(root, options));
  return SkillStore.fromRoots(perRoot);
}

/**
 * One directory name directly under the root, as `loadSkillsFromRoot` lists them: not empty,
 * not `.` or `..`, no `/` or `\\` (a nested path such as `nest/inner` is not a skill of this
 * root), no NUL, not absolute on any platform.
 */
function isPlainName(directory: string): boolean {
  if (directory === '' || directory === '.' || directory === '..') return false;
  return !/[\\/\0]/.test(directory) && !isAbsolute(directory);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
