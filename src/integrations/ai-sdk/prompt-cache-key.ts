import type { MiddlewareCallParams } from '../shared/prompt-view.js';

/**
 * OpenAI's cache routing for one call: the caller's `promptCacheKey` when set, else `fallbackKey`
 * (one key per conversation, so its requests reach the same cache); `retention` only where the
 * caller set none.
 */
export function withPromptCacheKey(
  params: MiddlewareCallParams,
  fallbackKey: string,
  retention: 'in_memory' | '24h' | undefined,
): { params: MiddlewareCallParams; promptCacheKey: string } {
  const openai = params.providerOptions?.openai ?? {};
  const promptCacheKey = typeof openai.promptCacheKey === 'string' ? openai.promptCacheKey : fallbackKey;
  return {
    promptCacheKey,
    params: {
      ...params,
      providerOptions: {
        ...params.providerOptions,
        openai: {
          ...openai,
          promptCacheKey,
          ...(retention && openai.promptCacheRetention === undefined ? { promptCacheRetention: retention } : {}),
        },
      },
    },
  };
}
