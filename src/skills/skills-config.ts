import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ValidationError } from '../model/errors.js';
import { parseWith } from '../model/validate.js';
import { type ActivationBudgetLimits, DEFAULT_ACTIVATION_BUDGET } from './activation-budget.js';
import type { SkillRoot } from './skill.js';
import { DEFAULT_MATCHER_OPTIONS } from './skill-matcher.js';

/** The workspace config file, relative to the workspace root. Other sections belong to other parts of Cachet. */
export const WORKSPACE_CONFIG_FILE = join('.cachet', 'config.json');

/** How skill bodies reach the model in a session (see docs/skills.md). */
export type SkillMode = 'on-demand' | 'per-turn' | 'off';

export interface SkillsConfig {
  mode: SkillMode;
  /** Absolute skill roots, in priority order. */
  directories: SkillRoot[];
  budget: ActivationBudgetLimits;
  matcher: { maxSkills: number; tokenBudget: number; minScore: number };
}

const positiveInt = z.number().int().positive();

const skillsSectionSchema = z
  .object({
    mode: z.enum(['on-demand', 'per-turn', 'off']).optional(),
    directories: z
      .array(z.union([z.string().min(1), z.object({ path: z.string().min(1), label: z.string().min(1).optional() }).strict()]))
      .optional(),
    budget: z
      .object({ maxExplicitActivations: positiveInt, warnTokens: positiveInt, hardCapTokens: positiveInt })
      .partial()
      .strict()
      .optional(),
    matcher: z
      .object({ maxSkills: positiveInt, tokenBudget: positiveInt, minScore: z.number().nonnegative() })
      .partial()
      .strict()
      .optional(),
  })
  .strict();

export type SkillsConfigInput = z.input<typeof skillsSectionSchema>;

/**
 * Resolve the `skills` section of a workspace config (already parsed JSON) over the defaults.
 * Relative directories resolve against `workspace`. Unknown keys and bad values are
 * ValidationErrors naming the file and the key path.
 */
export function resolveSkillsConfig(section: unknown, workspace: string, file = WORKSPACE_CONFIG_FILE): SkillsConfig {
  const parsed = parseWith(skillsSectionSchema, section ?? {}, `${file}: skills`);
  const budget = { ...DEFAULT_ACTIVATION_BUDGET, ...parsed.budget };
  if (budget.warnTokens > budget.hardCapTokens) {
    throw new ValidationError(
      `${file}: skills.budget.warnTokens`,
      `at most hardCapTokens (${budget.hardCapTokens})`,
      `got ${budget.warnTokens}`,
    );
  }
  const directories = (parsed.directories ?? [join('.cachet', 'skills')]).map((entry) => {
    const root = typeof entry === 'string' ? { path: entry } : entry;
    return { path: resolve(workspace, root.path), label: root.label ?? root.path };
  });
  return {
    mode: parsed.mode ?? 'on-demand',
    directories,
    budget,
    matcher: { ...DEFAULT_MATCHER_OPTIONS, ...parsed.matcher },
  };
}

/**
 * Read `<workspace>/.cachet/config.json` and resolve its `skills` section; a missing file
 * means the defaults (mode `on-demand`, skills in `.cachet/skills`, the seed budgets).
 *
 * @example
 * // .cachet/config.json: { "skills": { "mode": "per-turn", "budget": { "hardCapTokens": 50000 } } }
 * const config = await loadSkillsConfig(process.cwd());
 */
export async function loadSkillsConfig(workspace: string): Promise<SkillsConfig> {
  const file = join(workspace, WORKSPACE_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return resolveSkillsConfig({}, workspace);
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(WORKSPACE_CONFIG_FILE, 'valid JSON', (error as Error).message);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ValidationError(WORKSPACE_CONFIG_FILE, 'a JSON object with an optional "skills" section');
  }
  return resolveSkillsConfig((json as Record<string, unknown>).skills, workspace);
}
