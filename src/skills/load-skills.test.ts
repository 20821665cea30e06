import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSkill, loadSkillStore, loadSkillsFromRoot } from './load-skills.js';
import { DuplicateSkillError, SkillPathError } from './skill-errors.js';
import { SkillStore } from './skill-store.js';
import { FIXTURE_SKILLS_ROOT, makeSkill } from './test-fixtures/fixtures.js';

const skillText = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;

describe('loading skills from directories', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = mkdtempSync(join(tmpdir(), 'cachet-skills-'));
  });
  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  it('loads every skill of a root in name order', async () => {
    const skills = await loadSkillsFromRoot({ path: FIXTURE_SKILLS_ROOT, label: 'fixtures' });
    expect(skills.map((skill) => skill.name)).toEqual([
      'git-release',
      'incident-report',
      'pdf-tools',
      'react-testing',
      'sql-migrations',
    ]);
    expect(new Set(skills.map((skill) => skill.source))).toEqual(new Set(['fixtures']));
  });

  it('skips directories without SKILL.md and plain files', async () => {
    const root = join(workspace, 'skills');
    mkdirSync(join(root, 'notes'), { recursive: true });
    mkdirSync(join(root, 'real'), { recursive: true });
    writeFileSync(join(root, 'README.md'), 'not a skill');
    writeFileSync(join(root, 'real', 'SKILL.md'), skillText('real', 'A real skill.'));
    expect((await loadSkillsFromRoot({ path: root })).map((skill) => skill.name)).toEqual(['real']);
  });

  it('reads a root that does not exist as empty and refuses a root that is a file', async () => {
    expect(await loadSkillsFromRoot({ path: join(workspace, '.cachet', 'skills') })).toEqual([]);
    writeFileSync(join(workspace, 'not-a-dir'), 'x');
    await expect(loadSkillsFromRoot({ path: join(workspace, 'not-a-dir') })).rejects.toThrow(SkillPathError);
  });

  it('refuses a skill directory that climbs out with ".." or is absolute', async () => {
    mkdirSync(join(workspace, 'outside'), { recursive: true });
    writeFileSync(join(workspace, 'outside', 'SKILL.md'), skillText('outside', 'Outside the root.'));
    mkdirSync(join(workspace, 'skills'));
    const root = { path: join(workspace, 'skills') };
    await expect(loadSkill(root, '../outside')).rejects.toBeInstanceOf(SkillPathError);
    await expect(loadSkill(root, 'a/../../outside')).rejects.toThrow(/no absolute path, no "\.\."/);
    await expect(loadSkill(root, join(workspace, 'outside'))).rejects.toBeInstanceOf(SkillPathError);
  });

  it('refuses a nested directory such as nest/inner, as its own error text says (a plain name only)', async () => {
    const root = join(workspace, 'skills');
    mkdirSync(join(root, 'nest', 'inner'), { recursive: true });
    writeFileSync(join(root, 'nest', 'inner', 'SKILL.md'), skillText('inner', 'Nested one level down.'));
    for (const directory of ['nest/inner', 'nest\\inner', './nest', 'nest/', '.', '..', '', 'a\0b']) {
      const error = await loadSkill({ path: root }, directory).catch((caught: unknown) => caught);
      expect(error, directory).toBeInstanceOf(SkillPathError);
      expect((error as Error).message).toMatch(/must be a plain name inside its root \(no path separator/);
    }
    // The root's listing does not see it either: only direct children are skills.
    expect(await loadSkillsFromRoot({ path: root })).toEqual([]);
  });

  it('refuses a symbolic link that resolves outside the root, naming where it points', async () => {
    mkdirSync(join(workspace, 'elsewhere', 'escape'), { recursive: true });
    writeFileSync(join(workspace, 'elsewhere', 'escape', 'SKILL.md'), skillText('escape', 'Lives elsewhere.'));
    const root = join(workspace, 'skills');
    mkdirSync(root);
    symlinkSync(join(workspace, 'elsewhere', 'escape'), join(root, 'escape'));
    const error = await loadSkillsFromRoot({ path: root }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SkillPathError);
    expect((error as Error).message).toContain(join(workspace, 'elsewhere', 'escape', 'SKILL.md'));
    expect((error as Error).message).toContain('outside the skill root');
  });

  it('refuses a SKILL.md that is itself a link out of the root', async () => {
    writeFileSync(join(workspace, 'secret.md'), skillText('linked', 'Linked file.'));
    const root = join(workspace, 'skills');
    mkdirSync(join(root, 'linked'), { recursive: true });
    symlinkSync(join(workspace, 'secret.md'), join(root, 'linked', 'SKILL.md'));
    await expect(loadSkill({ path: root }, 'linked')).rejects.toBeInstanceOf(SkillPathError);
  });

  it('accepts a symbolic link that stays inside the root', async () => {
    const root = join(workspace, 'skills');
    cpSync(join(FIXTURE_SKILLS_ROOT, 'git-release'), join(root, 'store', 'git-release'), { recursive: true });
    symlinkSync(join(root, 'store', 'git-release'), join(root, 'git-release'));
    const skill = await loadSkill({ path: root }, 'git-release');
    expect(skill.name).toBe('git-release');
  });

  it('lets earlier roots win and lists what they shadow', async () => {
    const first = join(workspace, 'project');
    const second = join(workspace, 'shared');
    for (const [root, description] of [
      [first, 'Project version.'],
      [second, 'Shared version.'],
    ] as const) {
      mkdirSync(join(root, 'deploy'), { recursive: true });
      writeFileSync(join(root, 'deploy', 'SKILL.md'), skillText('deploy', description));
    }
    mkdirSync(join(second, 'extra'));
    writeFileSync(join(second, 'extra', 'SKILL.md'), skillText('extra', 'Only shared.'));
    const store = await loadSkillStore([
      { path: first, label: 'project' },
      { path: second, label: 'shared' },
    ]);
    expect(store.names).toEqual(['deploy', 'extra']);
    expect(store.get('deploy')?.description).toBe('Project version.');
    expect(store.get('deploy')?.source).toBe('project');
    expect(store.shadowed.map((skill) => `${skill.source}:${skill.name}`)).toEqual(['shared:deploy']);
  });
});

describe('SkillStore', () => {
  it('sorts by code unit order whatever the input order', () => {
    const store = SkillStore.of([makeSkill('beta'), makeSkill('alpha-2'), makeSkill('alpha')]);
    expect(store.names).toEqual(['alpha', 'alpha-2', 'beta']);
  });
  it('refuses two skills with one name', () => {
    expect(() => SkillStore.of([makeSkill('same'), makeSkill('same')])).toThrow(DuplicateSkillError);
  });
});
