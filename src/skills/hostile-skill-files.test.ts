import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSkill, loadSkillsFromRoot } from './load-skills.js';
import { parseSkillFile } from './parse-skill-file.js';
import { readSkillFileInsideRoot } from './read-skill-file.js';
import { SkillFileError, SkillFormatError, SkillPathError } from './skill-errors.js';

const skillText = (body: string) => `---\nname: race\ndescription: A skill whose file is swapped.\n---\n\n${body}\n`;

/**
 * A child process that swaps `<dir>/SKILL.md` between a regular file inside the root and a
 * symbolic link to a file outside it, as fast as it can, each swap an atomic rename.
 */
const SWAPPER = `
const { renameSync, symlinkSync, writeFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const [dir, outside, inside] = process.argv.slice(2);
const target = join(dir, 'SKILL.md');
const link = join(dir, '.swap-link');
const file = join(dir, '.swap-file');
process.send('ready');
for (;;) {
  rmSync(link, { force: true });
  symlinkSync(outside, link);
  renameSync(link, target);
  writeFileSync(file, inside);
  renameSync(file, target);
}
`;

describe('hostile skill files', () => {
  let workspace: string;
  let root: string;
  let swapper: ChildProcess | null = null;
  beforeEach(() => {
    workspace = mkdtempSync(join(tmpdir(), 'cachet-hostile-skills-'));
    root = join(workspace, 'skills');
    mkdirSync(join(root, 'race'), { recursive: true });
  });
  afterEach(() => {
    swapper?.kill('SIGKILL');
    swapper = null;
    rmSync(workspace, { recursive: true, force: true });
  });

  for (const rootCheck of ['auto', 'compare-identity'] as const) {
    it(`never returns the outside file while a child swaps a symbolic link in a tight loop (${rootCheck})`, async () => {
      const outside = join(workspace, 'secret.md');
      writeFileSync(outside, skillText('OUTSIDE-SECRET'));
      const inside = skillText('inside body');
      writeFileSync(join(root, 'race', 'SKILL.md'), inside);
      const script = join(workspace, 'swapper.cjs');
      writeFileSync(script, SWAPPER);
      const child = fork(script, [join(root, 'race'), outside, inside], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      swapper = child;
      await new Promise<void>((ready) => child.once('message', () => ready()));
      let loaded = 0;
      let refused = 0;
      // At least 3,000 loads, and on until both outcomes were seen (a cap keeps it bounded).
      for (let attempt = 0; attempt < 3_000 || (attempt < 20_000 && (loaded === 0 || refused === 0)); attempt++) {
        try {
          const text = await readSkillFileInsideRoot(root, join(root, 'race', 'SKILL.md'), { maxBytes: 4096, rootCheck });
          expect(text).not.toContain('OUTSIDE-SECRET');
          loaded += 1;
        } catch (error) {
          if (!(error instanceof SkillPathError)) throw error;
          refused += 1;
        }
      }
      // The outside link was seen, so the swap really raced the loader; the security property is
      // the assertion inside the loop. A legitimate load under the race is not guaranteed: the
      // identity check fails closed when the file is replaced between open and compare (seen on
      // Node 24), and the next test checks that an untouched file inside the root loads.
      expect(refused).toBeGreaterThan(0);
    });
  }

  it('still refuses a SKILL.md that is a symbolic link out of the root, and accepts one inside it', async () => {
    const outside = join(workspace, 'secret.md');
    writeFileSync(outside, skillText('OUTSIDE-SECRET'));
    symlinkSync(outside, join(root, 'race', 'SKILL.md'));
    await expect(loadSkill({ path: root }, 'race')).rejects.toThrow(SkillPathError);
    mkdirSync(join(root, 'shared'));
    writeFileSync(join(root, 'shared', 'body.md'), skillText('shared body'));
    rmSync(join(root, 'race', 'SKILL.md'));
    symlinkSync(join(root, 'shared', 'body.md'), join(root, 'race', 'SKILL.md'));
    expect((await loadSkill({ path: root }, 'race')).body).toBe('shared body');
  });

  it('refuses a FIFO named SKILL.md at once instead of blocking on it', async () => {
    execFileSync('mkfifo', [join(root, 'race', 'SKILL.md')]);
    const error = await loadSkill({ path: root }, 'race').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SkillFileError);
    expect((error as Error).message).toMatch(/race\/SKILL\.md: not a regular file \(a FIFO\)/);
    await expect(loadSkillsFromRoot({ path: root })).rejects.toThrow(SkillFileError);
  });

  it('refuses a SKILL.md larger than the limit before reading it, naming the file and both sizes', async () => {
    writeFileSync(join(root, 'race', 'SKILL.md'), skillText('x'.repeat(2 * 1024 * 1024)));
    const error = await loadSkill({ path: root }, 'race').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SkillFileError);
    expect((error as Error).message).toMatch(/SKILL\.md: 2\.0 MiB is larger than the limit of 1\.0 MiB/);
    const small = await loadSkill({ path: root }, 'race', { maxFileBytes: 3 * 1024 * 1024 });
    expect(small.body.length).toBe(2 * 1024 * 1024);
  });

  it('turns a YAML alias bomb in the front matter into a SkillFormatError', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(
        `${name}: &${name} [*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous}]`,
      );
    }
    const text = `---\nname: race\ndescription: bomb\nmetadata:\n${levels.map((line) => `  ${line}`).join('\n')}\n---\nbody\n`;
    expect(() => parseSkillFile(text, { file: 'bomb/SKILL.md' })).toThrow(SkillFormatError);
    expect(() => parseSkillFile(text, { file: 'bomb/SKILL.md' })).toThrow(
      /bomb\/SKILL\.md:1: invalid YAML front matter: .*alias/i,
    );
  });
});
