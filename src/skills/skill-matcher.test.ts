import { describe, expect, it } from 'vitest';
import { loadSkillStore } from './load-skills.js';
import { renderSkillElement, renderSkillGroup } from './render-skill-group.js';
import { SkillMatcher } from './skill-matcher.js';
import { FIXTURE_SKILLS_ROOT, makeSkill, makeStore } from './test-fixtures/fixtures.js';

// BM25 weighs a term by how rare it is: a store where every skill says "deploy" learns nothing
// from it. Unrelated skills make the corpus look like a real one.
const UNRELATED = ['css-layout', 'regex-help', 'json-schema', 'docker-build', 'unit-conversion'].map((name) =>
  makeSkill(name, { description: `Helps with ${name.replace('-', ' ')} questions.` }),
);

const store = await loadSkillStore([{ path: FIXTURE_SKILLS_ROOT, label: 'fixtures' }]);

describe('SkillMatcher (BM25+ over name, description, triggers)', () => {
  const matcher = new SkillMatcher(store);
  it.each([
    ['merge these two PDF files into one', 'pdf-tools'],
    ['please write the changelog and tag the release', 'git-release'],
    ['add a nullable column to the users table and write a migration', 'sql-migrations'],
    ['the site had an outage last night, draft a postmortem', 'incident-report'],
    ['write unit tests for the Button component with vitest', 'react-testing'],
  ])('matches %j to %s', (input, expected) => {
    expect(matcher.match(input).map((match) => match.skill.name)).toEqual([expected]);
  });

  it('matches nothing below the relevance threshold', () => {
    expect(matcher.match('what is the weather like today')).toEqual([]);
    // "tools" hits the pdf-tools name, but one generic word is not relevance.
    expect(matcher.score('use the tools to do it')[0]?.name).toBe('pdf-tools');
    expect(matcher.match('use the tools to do it')).toEqual([]);
  });

  it('ranks triggers: a trigger word alone is enough', () => {
    expect(matcher.match('postmortem please').map((match) => match.skill.name)).toEqual(['incident-report']);
  });

  it('keeps at most 3 skills, best first', () => {
    const many = makeStore([
      ...['one', 'two', 'three', 'four', 'five'].map((name, index) =>
        makeSkill(`deploy-${name}`, { description: `Deploy service ${name} to production${' production'.repeat(index)}.` }),
      ),
      ...UNRELATED,
    ]);
    const matches = new SkillMatcher(many).match('deploy production');
    expect(matches).toHaveLength(3);
    const scores = matches.map((match) => match.score);
    expect([...scores].sort((left, right) => right - left)).toEqual(scores);
  });

  it('keeps the rendered skills within the 16,000-token budget, skipping one that does not fit', () => {
    const sized = makeStore([
      makeSkill('huge-deploy', { description: 'Deploy to production, the full runbook.', bodyChars: 70_000 }),
      makeSkill('deploy-check', { description: 'Deploy checklist for production.', bodyChars: 2_000 }),
      makeSkill('deploy-notes', { description: 'Deploy notes for production.', bodyChars: 50_000 }),
      ...UNRELATED,
    ]);
    const matcher = new SkillMatcher(sized, { tokenCounter: { countText: (text) => Math.ceil(text.length / 4) } });
    const matches = matcher.match('deploy production');
    expect(matches.length).toBeGreaterThan(0);
    expect(matches.reduce((sum, match) => sum + match.tokens, 0)).toBeLessThanOrEqual(16_000);
    expect(matches.map((match) => match.skill.name)).not.toContain('huge-deploy');
    expect(matches.map((match) => match.skill.name)).toContain('deploy-check');
  });

  it('is deterministic: the same input gives the same match in a new matcher', () => {
    const input = 'fill the pdf form and tag the release';
    expect(new SkillMatcher(store).match(input)).toEqual(matcher.match(input));
  });
});

describe('renderSkillGroup', () => {
  it('renders seed 001 elements, escaping attributes and early closing tags', () => {
    const skill = makeSkill('quote-test', {
      description: 'Use "quotes" & <tags>.',
      body: 'Body with </skill> inside.',
      tools: 'Read Bash(git:*)',
    });
    expect(renderSkillElement(skill)).toBe(
      '<skill name="quote-test" tools="Read Bash(git:*)"><description>Use &quot;quotes&quot; &amp; &lt;tags&gt;.</description><instructions>Body with &lt;/skill> inside.</instructions></skill>',
    );
    expect(renderSkillGroup([skill, skill]).split('\n')).toHaveLength(2);
    expect(renderSkillGroup([])).toBe('');
  });
});
