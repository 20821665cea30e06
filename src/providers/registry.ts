import { anthropicProvider } from './anthropic/provider-entry.js';
import { bedrockProvider } from './bedrock/provider-entry.js';
import { deepSeekProvider } from './deepseek/provider-entry.js';
import { geminiProvider } from './gemini/provider-entry.js';
import { openAIChatProvider } from './openai-chat/provider-entry.js';
import { openAICompatibleProvider } from './openai-compatible/provider-entry.js';
import { openAIResponsesProvider } from './openai-responses/provider-entry.js';
import { openRouterProvider } from './openrouter/provider-entry.js';
import type { ProviderEntry } from './provider-entry.js';
import { isProviderId, PROVIDER_IDS, type ProviderId } from './provider-id.js';
import type { PriceRow } from './shared/price-row.js';

export { isProviderId, PROVIDER_IDS, type ProviderId };

/**
 * The provider registry: one line per wire API Cachet speaks. Adding a provider is one folder
 * under `src/providers/` (with its `provider-entry.ts`) plus one line here; nothing outside
 * `src/providers/` switches on provider ids (a test checks).
 */
export const PROVIDERS: { readonly [Id in ProviderId]: ProviderEntry } = {
  anthropic: anthropicProvider,
  'openai-chat': openAIChatProvider,
  'openai-responses': openAIResponsesProvider,
  openrouter: openRouterProvider,
  'openai-compatible': openAICompatibleProvider,
  bedrock: bedrockProvider,
  gemini: geminiProvider,
  deepseek: deepSeekProvider,
};

/**
 * The registry entry of a provider.
 *
 * @example
 * providerEntry('openrouter').route('anthropic/claude-sonnet-4.5').rules; // 'anthropic'
 */
export function providerEntry(id: ProviderId): ProviderEntry {
  return PROVIDERS[id];
}

/** Every provider's own price rows, once each (OpenAI's list serves both of its wire APIs). */
export function registeredPrices(): readonly PriceRow[] {
  return [...new Set(Object.values(PROVIDERS).flatMap((entry: ProviderEntry) => entry.prices))];
}

/**
 * The provider of a body whose wire format was detected (`detectWireFormat`), refined by its
 * model: a Chat Completions or OpenAI-compatible body for a DeepSeek model (`deepseek-chat`,
 * `deepseek-reasoner`, `deepseek-v4-…`) is DeepSeek's, judged under DeepSeek's cache rules and
 * priced from its list (as OpenAI's it read its own rules and no price, so $0).
 *
 * @example
 * refineDetectedProvider('openai-chat', 'deepseek-chat'); // 'deepseek'
 */
export function refineDetectedProvider(detected: ProviderId, model: string): ProviderId {
  if ((detected === 'openai-chat' || detected === 'openai-compatible') && /^deepseek(-|$)/.test(model)) return 'deepseek';
  return detected;
}
