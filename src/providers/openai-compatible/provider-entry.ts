import { type ProviderEntry, registryAdapter } from '../provider-entry.js';
import { createOpenAICompatibleAdapter } from './index.js';
import { resolveCompat } from './models.js';

/** llama.cpp's template switches shape the rendered prompt. */
const LOCAL_PREFIX_PARAMS = ['chat_template_kwargs'] as const;

/** The model the simulator runs local workloads on when the CLI switches to a local engine. */
const DEFAULT_LOCAL_MODEL = 'qwen3-8b';

/** Simulated and proxied local engines are llama.cpp servers (the bundled local workload's engine). */
const llamaCppAdapter = createOpenAICompatibleAdapter({ server: 'llama.cpp' });

/** OpenAI-compatible local engines (llama.cpp, vLLM, SGLang, Ollama) in the provider registry: unpriced, local rules. */
export const openAICompatibleProvider: ProviderEntry = {
  id: 'openai-compatible',
  wire: 'chat-completions',
  adapter: registryAdapter(llamaCppAdapter),
  prices: [],
  acceptsHistoryTtl: false,
  defersToolLoading: false,
  callerMarkers: 'none',
  route: (model) => ({ rules: 'local', upstreamModel: model, priceVendor: null }),
  prefixParams: () => LOCAL_PREFIX_PARAMS,
  counterpartModel: () => DEFAULT_LOCAL_MODEL,
  planOptions: ({ deferredToolPlacement }) => (deferredToolPlacement ? { deferredTools: deferredToolPlacement } : {}),
  chatTemplate: (model) => (resolveCompat(model).family === 'qwen3' ? 'qwen3' : 'other'),
};
