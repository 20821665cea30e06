import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { DEFAULT_ACTIVATION_BUDGET } from './activation-budget.js';
import { DEFAULT_MATCHER_OPTIONS } from './skill-matcher.js';
import { loadSkillsConfig, resolveSkillsConfig } from './skills-config.js';

describe('workspace skills config (.cachet/config.json)', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = mkdtempSync(join(tmpdir(), 'cachet-config-'));
  });
  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  const write = (content: string) => {
    mkdirSync(join(workspace, '.cachet'), { recursive: true });
    writeFileSync(join(workspace, '.cachet', 'config.json'), content);
  };

  it('uses the seed defaults when there is no file', async () => {
    const config = await loadSkillsConfig(workspace);
    expect(config).toEqual({
      mode: 'on-demand',
      directories: [{ path: join(workspace, '.cachet', 'skills'), label: join('.cachet', 'skills') }],
      budget: { ...DEFAULT_ACTIVATION_BUDGET },
      matcher: { ...DEFAULT_MATCHER_OPTIONS },
    });
    expect(config.budget).toEqual({ maxExplicitActivations: 3, warnTokens: 10_000, hardCapTokens: 30_000 });
  });

  it('overrides single fields and keeps other sections of the file for other parts of Cachet', async () => {
    write(
      JSON.stringify({
        compaction: { anything: true },
        skills: {
          mode: 'per-turn',
          directories: ['skills', { path: '/opt/shared-skills', label: 'shared' }],
          budget: { hardCapTokens: 50_000 },
          matcher: { maxSkills: 2 },
        },
      }),
    );
    const config = await loadSkillsConfig(workspace);
    expect(config.mode).toBe('per-turn');
    expect(config.directories).toEqual([
      { path: join(workspace, 'skills'), label: 'skills' },
      { path: '/opt/shared-skills', label: 'shared' },
    ]);
    expect(config.budget).toEqual({ maxExplicitActivations: 3, warnTokens: 10_000, hardCapTokens: 50_000 });
    expect(config.matcher).toEqual({ ...DEFAULT_MATCHER_OPTIONS, maxSkills: 2 });
  });

  it('names the file and key of a bad value', async () => {
    write(JSON.stringify({ skills: { budget: { maxExplicitActivations: 0 } } }));
    const error = await loadSkillsConfig(workspace).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe(`${join('.cachet', 'config.json')}: skills.budget.maxExplicitActivations`);
  });

  it('refuses unknown keys, invalid JSON and a warning above the hard cap', async () => {
    expect(() => resolveSkillsConfig({ budgets: {} }, workspace)).toThrow(/no unknown keys \(found budgets\)/);
    expect(() => resolveSkillsConfig({ budget: { warnTokens: 40_000 } }, workspace)).toThrow(
      /skills\.budget\.warnTokens: expected at most hardCapTokens \(30000\)/,
    );
    write('{ "skills": ');
    await expect(loadSkillsConfig(workspace)).rejects.toThrow(/config\.json: expected valid JSON/);
  });
});
