import type { Usage } from '../../model/usage.js';
import { parseAnthropicUsage } from '../../providers/anthropic/parse-usage.js';

/** What `usageFromLangChain` reads: an `AIMessage` (or chunk) from a chat model. */
export interface LangChainUsageSource {
  usage_metadata?: {
    input_tokens: number;
    output_tokens: number;
    input_token_details?: {
      cache_read?: number;
      cache_creation?: number;
      ephemeral_5m_input_tokens?: number;
      ephemeral_1h_input_tokens?: number;
    };
    output_token_details?: { reasoning?: number };
  };
  response_metadata?: Record<string, unknown>;
}

/**
 * Cachet `Usage` from a LangChain AI message. The raw Anthropic usage in `response_metadata.usage`
 * is parsed when present (writes split by TTL); otherwise `usage_metadata`, where `input_tokens`
 * counts every input token and `input_token_details.cache_read / cache_creation` are parts of it.
 *
 * @example
 * const reply = await model.invoke(messages);
 * recordUsage(session, usageFromLangChain(reply), { turn, step, price: pricedBy('anthropic') });
 */
export function usageFromLangChain(message: LangChainUsageSource): Usage | null {
  const raw = message.response_metadata?.usage;
  if (typeof raw === 'object' && raw !== null && 'cache_read_input_tokens' in raw) {
    try {
      return parseAnthropicUsage(raw);
    } catch {
      // Not an Anthropic usage object after all: read the normalised fields below.
    }
  }
  const usage = message.usage_metadata;
  if (!usage) return null;
  const details = usage.input_token_details ?? {};
  const cacheRead = details.cache_read ?? 0;
  const cacheWrite = details.cache_creation ?? 0;
  const write1h = details.ephemeral_1h_input_tokens ?? 0;
  return {
    uncachedInputTokens: Math.max(0, usage.input_tokens - cacheRead - cacheWrite),
    cacheReadTokens: cacheRead,
    cacheWrite5mTokens: Math.max(0, cacheWrite - write1h),
    cacheWrite1hTokens: write1h,
    outputTokens: usage.output_tokens,
    reasoningTokens: usage.output_token_details?.reasoning ?? 0,
    raw: usage,
  };
}
