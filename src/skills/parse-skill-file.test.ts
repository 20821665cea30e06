import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../model/hash.js';
import { loadSkill } from './load-skills.js';
import { parseSkillFile } from './parse-skill-file.js';
import { SkillFormatError } from './skill-errors.js';
import { skillNameProblem } from './skill-name.js';
import { FIXTURE_MALFORMED_ROOT, FIXTURE_SKILLS_ROOT } from './test-fixtures/fixtures.js';

describe('parseSkillFile', () => {
  it('reads every standard field, triggers and the body', async () => {
    const skill = await loadSkill({ path: FIXTURE_SKILLS_ROOT, label: 'fixtures' }, 'pdf-tools');
    expect(skill.name).toBe('pdf-tools');
    expect(skill.description).toMatch(/^Extract text and tables from PDF files/);
    expect(skill.license).toBe('Apache-2.0');
    expect(skill.allowedTools).toEqual(['Bash(python3:*)', 'Read']);
    expect(skill.metadata.author).toBe('cachet-fixtures');
    expect(skill.triggers).toEqual(['pdf', 'merge documents', 'fill form']);
    expect(skill.body.startsWith('# PDF tools')).toBe(true);
    expect(skill.body).not.toContain('---');
    expect(skill.source).toBe('fixtures');
  });

  it('accepts triggers as a single string and folded descriptions', async () => {
    const sql = await loadSkill({ path: FIXTURE_SKILLS_ROOT }, 'sql-migrations');
    expect(sql.triggers).toEqual(['migration schema database']);
    const incident = await loadSkill({ path: FIXTURE_SKILLS_ROOT }, 'incident-report');
    expect(incident.description).toBe(
      'Write a blameless incident report: timeline, impact, root cause, and follow-up actions with owners.\n',
    );
  });

  it('versions a skill by the SHA-256 of its file, so any edit changes the version', () => {
    const file = join(FIXTURE_SKILLS_ROOT, 'git-release', 'SKILL.md');
    const text = readFileSync(file, 'utf8');
    const skill = parseSkillFile(text, { file });
    expect(skill.version).toBe(sha256(text));
    expect(parseSkillFile(text.replace('Push the tag', 'Push the tags'), { file }).version).not.toBe(skill.version);
  });

  // Each malformed fixture: the error names the file and the line of the problem.
  const malformed: Array<[string, number, RegExp]> = [
    ['bad-yaml', 3, /invalid YAML front matter: Missing closing "quote/],
    ['missing-description', 1, /"description" is required/],
    ['bad-name', 4, /name "Bad--Name" must not contain consecutive hyphens/],
    ['name-mismatch', 2, /must match its directory name "name-mismatch"/],
    ['no-front-matter', 1, /expected YAML front matter/],
    ['unclosed-front-matter', 1, /never closed/],
    ['unknown-key', 4, /unknown front matter key "version"/],
    ['bad-triggers', 6, /metadata\.triggers must be a string or a list of strings/],
    ['long-description', 3, /"description" must be at most 1024 characters/],
  ];
  for (const [directory, line, pattern] of malformed) {
    it(`reports ${directory} with its file and line ${line}`, async () => {
      const error = await loadSkill({ path: FIXTURE_MALFORMED_ROOT }, directory).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SkillFormatError);
      const formatError = error as SkillFormatError;
      const file = join(FIXTURE_MALFORMED_ROOT, directory, 'SKILL.md');
      expect(formatError.file).toBe(file);
      expect(formatError.line).toBe(line);
      expect(formatError.message.startsWith(`${file}:${line}: `)).toBe(true);
      expect(formatError.message).toMatch(pattern);
    });
  }

  it('counts lines from the top of the file, front matter fence included', () => {
    const text = '---\nname: x\ndescription: fine\nlicense: MIT\nmetadata:\n  triggers: 3\n---\nbody';
    expect(() => parseSkillFile(text, { file: 'x/SKILL.md' })).toThrowError('x/SKILL.md:6: metadata.triggers');
  });
});

describe('skillNameProblem (agentskills.io name rules)', () => {
  it.each(['pdf-processing', 'a', '1password', 'data-analysis-2', 'x'.repeat(64)])('accepts %s', (name) => {
    expect(skillNameProblem(name)).toBeNull();
  });
  it.each([
    ['', /empty/],
    ['x'.repeat(65), /at most 64/],
    ['PDF-Processing', /lowercase/],
    ['-pdf', /start or end/],
    ['pdf-', /start or end/],
    ['pdf--processing', /consecutive/],
    ['pdf processing', /lowercase/],
    ['pdf_processing', /lowercase/],
  ])('refuses %j', (name, pattern) => {
    expect(skillNameProblem(name)).toMatch(pattern);
  });
});
