import { matchModelRow } from '../../model/match-model.js';
import { claudeModelId } from '../anthropic/model-id.js';
import type { ChatDialect } from '../openai-chat/chat-messages.js';

/**
 * OpenRouter route families: each row lists the ids it covers, matched against the OpenRouter
 * model id (`anthropic/claude-sonnet-4.5`) by `matchModelRow`'s rule. User rows go first.
 */
export interface OpenRouterRouteFacts {
  /** Ids this route covers: `anthropic` covers every `anthropic/…` model. Empty for the fallback row. */
  models: readonly string[];
  family: string;
  /** Whose cache rules the upstream follows, and whose price list prices it (null: unpriced). */
  cacheRules: 'anthropic' | 'openai';
  priceVendor: string | null;
  /** `cache_control`: OpenRouter passes Anthropic-style markers through to this upstream. */
  markers: 'cache_control' | 'none';
  maxMarkers: number;
  /** Where the tail goes in tool loops for this upstream (see docs/providers/openrouter.md). */
  tailInToolLoop: ChatDialect['tailInToolLoop'];
  /** Whether signed reasoning is sent back as `reasoning_details` (Anthropic thinking in tool loops). */
  reasoningDetails: boolean;
  source: string;
  checked: string;
}

const DOCS = 'openrouter.ai/docs/guides/best-practices/prompt-caching';

export const OPENROUTER_ROUTES: readonly OpenRouterRouteFacts[] = [
  {
    // OpenRouter lifts system messages into Anthropic's `system`, which precedes every message in
    // the cache prefix, so the tail must not be a system message there. A user message after the
    // tool results is merged by Anthropic into the tool-result turn: the native tail placement.
    models: ['anthropic'],
    family: 'anthropic',
    cacheRules: 'anthropic',
    priceVendor: 'anthropic',
    markers: 'cache_control',
    maxMarkers: 4,
    tailInToolLoop: 'trailing-user',
    reasoningDetails: true,
    source: `${DOCS}; platform.claude.com prompt-caching (consecutive user turns are combined)`,
    checked: '2026-11-21',
  },
  {
    models: ['openai'],
    family: 'openai',
    cacheRules: 'openai',
    priceVendor: 'openai',
    markers: 'none',
    maxMarkers: 0,
    tailInToolLoop: 'trailing-system',
    reasoningDetails: false,
    source: `${DOCS} (automatic caching upstream)`,
    checked: '2026-11-21',
  },
  {
    // Unknown upstreams render chat templates that may reject or hoist a non-first system
    // message; appending to the last tool result is accepted everywhere.
    models: [],
    family: 'other',
    cacheRules: 'openai',
    priceVendor: null,
    markers: 'none',
    maxMarkers: 0,
    tailInToolLoop: 'merge-into-last-input',
    reasoningDetails: false,
    source: `${DOCS} (automatic caching where the upstream has it)`,
    checked: '2026-11-21',
  },
];

/**
 * Facts for an OpenRouter model id: user rows first, then the built-in table.
 *
 * @example
 * resolveOpenRouterRoute('anthropic/claude-sonnet-4.5').markers // 'cache_control'
 */
export function resolveOpenRouterRoute(model: string, overrides: readonly OpenRouterRouteFacts[] = []): OpenRouterRouteFacts {
  const fallback = OPENROUTER_ROUTES[OPENROUTER_ROUTES.length - 1]!;
  return matchModelRow(model, [overrides, OPENROUTER_ROUTES], (row) => row.models) ?? fallback;
}

/**
 * The Anthropic model id behind an OpenRouter id, for the Anthropic model table (floors):
 * OpenRouter writes versions with dots where Anthropic uses dashes.
 *
 * @example
 * anthropicModelId('anthropic/claude-haiku-4.5') // 'claude-haiku-4-5'
 */
export function anthropicModelId(model: string): string {
  return claudeModelId(model);
}
