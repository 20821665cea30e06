import type { ProviderAdapter } from '../adapter.js';
import { openAICompatibleCapabilities } from './capabilities.js';
import { convertToOpenAICompatible, type OpenAICompatibleBody, type OpenAICompatibleOptions } from './convert-request.js';
import { parseOpenAICompatibleUsage } from './parse-usage.js';

export { openAICompatibleCapabilities } from './capabilities.js';
export { type RenderOptions, renderChatTemplate } from './chat-template.js';
export { convertToOpenAICompatible, type OpenAICompatibleBody, type OpenAICompatibleOptions } from './convert-request.js';
export {
  type CompatFlags,
  type CompatResolution,
  DEFAULT_COMPAT_FLAGS,
  type LocalServer,
  MODEL_FAMILY_ROWS,
  type ModelFamilyRow,
  type ResolvedCompat,
  resolveCompat,
  SERVER_ROWS,
  type ServerRow,
} from './models.js';
export { parseOpenAICompatibleUsage } from './parse-usage.js';
export { type CacheHints, cacheHints, slotFor } from './place-breakpoints.js';

/**
 * Adapter for OpenAI-compatible local engines, with flags detected from the model id alone
 * (server `unknown`). Use `createOpenAICompatibleAdapter` to name the server or override flags.
 *
 * @example
 * const adapter = createOpenAICompatibleAdapter({ server: 'llama.cpp', overrides: { slotCount: 4 } });
 * const { body } = adapter.convertRequest(assemble(session));
 */
export function createOpenAICompatibleAdapter(
  defaults: OpenAICompatibleOptions = {},
): ProviderAdapter<OpenAICompatibleBody, OpenAICompatibleOptions> {
  return {
    id: 'openai-compatible',
    capabilities: (model) => openAICompatibleCapabilities(model, defaults),
    convertRequest: (request, options) =>
      convertToOpenAICompatible(request, {
        ...defaults,
        ...options,
        overrides: { ...defaults.overrides, ...options?.overrides },
      }),
    parseUsage: (response) => parseOpenAICompatibleUsage(response),
  };
}

export const openAICompatibleAdapter = createOpenAICompatibleAdapter();

export type { ChatTemplateFacts, CompatRow, SlidingWindowFact } from './models.js';
