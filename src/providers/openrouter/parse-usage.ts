import { z } from 'zod';
import type { Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';
import { chatUsageSchema, normalizeChatUsage } from '../openai-chat/parse-usage.js';
import { usagePayload } from '../shared/openai-usage.js';

/** OpenRouter usage: normalized `Usage` plus the money figures OpenRouter reports. */
export interface OpenRouterUsage extends Usage {
  /** What the response saved on caching, in credits; negative when cache writes cost extra. */
  cacheDiscount: number | null;
  /** `usage.cost`: the amount charged, in credits. */
  cost: number | null;
}

const openRouterUsageSchema = chatUsageSchema.extend({
  cost: z.number().nullish(),
  cache_discount: z.number().nullish(),
});

/**
 * Usage of an OpenRouter Chat Completions response: `prompt_tokens_details.cached_tokens`
 * (reads), `prompt_tokens_details.cache_write_tokens` (writes, on routes with explicit caching)
 * and `cache_discount` (top level of the response, or inside `usage`).
 *
 * @example
 * parseOpenRouterUsage(completion).cacheDiscount
 */
export function parseOpenRouterUsage(response: unknown): OpenRouterUsage {
  const raw = usagePayload(response);
  const usage = parseWith(openRouterUsageSchema, raw, 'usage');
  const topLevel =
    typeof response === 'object' && response !== null && 'cache_discount' in response
      ? parseWith(z.number().nullable(), (response as { cache_discount: unknown }).cache_discount, 'cache_discount')
      : null;
  return {
    ...normalizeChatUsage(usage, topLevel === null ? raw : { usage: raw, cache_discount: topLevel }),
    cacheDiscount: topLevel ?? usage.cache_discount ?? null,
    cost: usage.cost ?? null,
  };
}

const upstreamSchema = z.object({ provider: z.string().min(1).nullish() }).passthrough();

/**
 * The upstream provider an OpenRouter response names (`provider`, e.g. `"Anthropic"`,
 * `"Amazon Bedrock"`), or null when it names none. Each upstream keeps its own cache: pass it as
 * the break detector's `route` so a miss after a routing change is reported as `route-changed`.
 *
 * @example
 * watch.observe(body, { at, usage: parseOpenRouterUsage(completion), route: openRouterUpstream(completion) });
 */
export function openRouterUpstream(response: unknown): string | null {
  if (typeof response !== 'object' || response === null) return null;
  return parseWith(upstreamSchema, response, 'response').provider ?? null;
}
