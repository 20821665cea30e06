import { assertNever } from '../model/validate.js';
import type { ProviderAdapter, ProviderId } from '../providers/adapter.js';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import { openAIChatAdapter } from '../providers/openai-chat/index.js';
import { createOpenAICompatibleAdapter } from '../providers/openai-compatible/index.js';
import { openAIResponsesAdapter } from '../providers/openai-responses/index.js';
import { openRouterAdapter } from '../providers/openrouter/index.js';

/** Simulated local engines are llama.cpp servers (the bundled local workload's engine). */
const llamaCppAdapter = createOpenAICompatibleAdapter({ server: 'llama.cpp' });

/** The adapter for a provider name, typed loosely: the simulator treats bodies as opaque JSON. */
export function adapterFor(provider: ProviderId): ProviderAdapter<unknown, Record<string, unknown>> {
  switch (provider) {
    case 'anthropic':
      return anthropicAdapter as unknown as ProviderAdapter<unknown, Record<string, unknown>>;
    case 'openai-chat':
      return openAIChatAdapter as unknown as ProviderAdapter<unknown, Record<string, unknown>>;
    case 'openai-responses':
      return openAIResponsesAdapter as unknown as ProviderAdapter<unknown, Record<string, unknown>>;
    case 'openrouter':
      return openRouterAdapter as unknown as ProviderAdapter<unknown, Record<string, unknown>>;
    case 'openai-compatible':
      return llamaCppAdapter as unknown as ProviderAdapter<unknown, Record<string, unknown>>;
    default:
      return assertNever(provider);
  }
}
