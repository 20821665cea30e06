import { claudeModelId } from '../anthropic/model-id.js';
import { DEFAULT_CLAUDE_MODEL } from '../anthropic/provider-entry.js';
import { type ProviderEntry, registryAdapter } from '../provider-entry.js';
import { bedrockAdapter } from './index.js';
import { bedrockBaseModelId, isBedrockClaude } from './models.js';
import { BEDROCK_NOVA_PRICES } from './prices.js';

/** Claude on Bedrock through the US cross-region inference profile: the default when switching providers. */
export const DEFAULT_BEDROCK_MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

/**
 * Amazon Bedrock (Converse) in the provider registry. Bodies follow Anthropic's cache rules
 * (the Converse body is judged as the Messages body it stands for); Claude is priced from
 * Anthropic's list, Nova from Amazon's.
 */
export const bedrockProvider: ProviderEntry = {
  id: 'bedrock',
  wire: 'bedrock-converse',
  adapter: registryAdapter(bedrockAdapter),
  prices: BEDROCK_NOVA_PRICES,
  acceptsHistoryTtl: true,
  // Neither wire has a deferred-loading field: discovered tools are declared up front or appended.
  defersToolLoading: false,
  callerMarkers: 'anthropic-paths',
  route: (model) => {
    const base = bedrockBaseModelId(model);
    return { rules: 'anthropic', upstreamModel: base, priceVendor: isBedrockClaude(model) ? 'anthropic' : 'amazon' };
  },
  prefixParams: () => [],
  counterpartModel: (model) => {
    if (model.includes('anthropic.') || model.includes('amazon.')) return model;
    const claude = claudeModelId(model);
    // Bedrock ids carry a date and version; the Anthropic row matches on the family prefix.
    return claude.startsWith('claude-') && claude !== DEFAULT_CLAUDE_MODEL
      ? `us.anthropic.${claude}-v1:0`
      : DEFAULT_BEDROCK_MODEL;
  },
  planOptions: ({ historyTtl, previous, tokenCounter, deferredToolPlacement, finalRequest }) => ({
    ...(historyTtl ? { ttl: { history: historyTtl } } : {}),
    ...(finalRequest ? { finalRequest } : {}),
    ...(deferredToolPlacement ? { deferredTools: deferredToolPlacement } : {}),
    ...(previous !== undefined ? { previous } : {}),
    ...(tokenCounter ? { tokenCounter } : {}),
  }),
  chatTemplate: () => 'other',
};
