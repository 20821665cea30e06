import type { ProviderAdapter } from '../adapter.js';
import { openAICompatibleCapabilities } from './capabilities.js';
import { convertToOpenAICompatible, type OpenAICompatibleBody, type OpenAICompatibleOptions } from './convert-request.js';
import { parseOpenAICompatibleUsage } from './parse-usage.js';

export { openAICompatibleCapabilities } from './capabilities.js';
export { renderChatTemplate, type RenderOptions } from './chat-template.js';
export { convertToOpenAICompatible, type OpenAICompatibleBody, type OpenAICompatibleOptions } from './convert-request.js';
export {
  DEFAULT_COMPAT_FLAGS,
  MODEL_FAMILY_ROWS,
  SERVER_ROWS,
  resolveCompat,
  type CompatFlags,
  type CompatResolution,
  type LocalServer,
  type ModelFamilyRow,
  type ResolvedCompat,
  type ServerRow,
} from './models.js';
export { cacheHints, slotFor, type CacheHints } from './place-breakpoints.js';
export { parseOpenAICompatibleUsage } from './parse-usage.js';

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
