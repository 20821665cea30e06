import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../model/hash.js';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { preloadedSkillSection, renderDiscoveryIndex } from './discovery-index.js';
import { SkillStore } from './skill-store.js';
import { makeSkill } from './test-fixtures/fixtures.js';

const skills = [
  makeSkill('pdf-tools', { description: 'Work with PDF files.' }),
  makeSkill('git-release', { description: 'Cut a release\n  and tag it.' }),
  makeSkill('ab', { description: 'Short name.' }),
];

describe('renderDiscoveryIndex', () => {
  it('lists "- name: description" sorted by name, one line each', () => {
    const index = renderDiscoveryIndex(SkillStore.of(skills), { preamble: '' });
    expect(index.split('\n')).toEqual([
      '- ab: Short name.',
      '- git-release: Cut a release and tag it.',
      '- pdf-tools: Work with PDF files.',
    ]);
  });

  it('annotates pre-activated skills with [preloaded]', () => {
    const index = renderDiscoveryIndex(SkillStore.of(skills), { preloaded: ['pdf-tools'], preamble: '' });
    expect(index).toContain('- pdf-tools [preloaded]: Work with PDF files.');
    expect(index).toContain('- ab: Short name.');
  });

  it('gives the same bytes whatever order skills and preloaded names arrive in', () => {
    const reference = sha256(renderDiscoveryIndex(SkillStore.of(skills), { preloaded: ['ab', 'pdf-tools'] }));
    fc.assert(
      fc.property(fc.shuffledSubarray(skills, { minLength: 3, maxLength: 3 }), fc.boolean(), (shuffled, flip) => {
        const preloaded = flip ? ['pdf-tools', 'ab'] : ['ab', 'pdf-tools'];
        expect(sha256(renderDiscoveryIndex(SkillStore.of(shuffled), { preloaded }))).toBe(reference);
      }),
      { numRuns: propertyRuns(100) },
    );
  });

  it('is empty for an empty store and keeps the preamble otherwise', () => {
    expect(renderDiscoveryIndex(SkillStore.of([]))).toBe('');
    expect(renderDiscoveryIndex(SkillStore.of(skills)).startsWith('# Skills\n')).toBe(true);
  });

  it('renders a preloaded section under the heading the pointer names', () => {
    expect(preloadedSkillSection({ name: 'x', body: 'Do it.' })).toBe('# Skill: x\n\nDo it.');
  });
});
