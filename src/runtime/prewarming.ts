import { CachetError } from '../model/errors.js';
import type { ThinkingConfig } from '../model/request.js';
import type { ProviderId } from '../providers/adapter.js';
import { bedrockBaseModelId } from '../providers/bedrock/models.js';
import type { WireShape } from '../providers/provider-entry.js';
import { providerEntry } from '../providers/registry.js';

/** A keep-warm the session cannot have: the model or the request's parameters rule out a pre-warm request. */
export class KeepWarmUnsupportedError extends CachetError {
  constructor(reason: string) {
    super('keep_warm_unsupported', `keep-warm: ${reason}`);
  }
}

/**
 * Where a pre-warm request exists: Anthropic's `max_tokens: 0` request, which reads (or writes)
 * the prefix, refreshes its entry and generates nothing. Claude models only, on the wires that
 * carry them. Source: Anthropic's pre-warming announcement, summarised at
 * headsupai.io/updates/anthropic-launches-prompt-cache-pre-warming-eliminate-initial-claude-api-latency
 * (checked 2026-11-27): Claude API, Amazon Bedrock and Microsoft Foundry; not with streaming,
 * extended thinking or structured outputs. Caches that are automatic (OpenAI, Gemini implicit,
 * DeepSeek) have no pre-warm request and lifetimes a ping would not price the same way.
 */
export const PREWARMING_WIRES: Readonly<Partial<Record<WireShape, { modelPrefix: string; source: string }>>> = {
  'anthropic-messages': { modelPrefix: 'claude', source: 'Claude API: max_tokens: 0 (pre-warming)' },
  'bedrock-converse': { modelPrefix: 'claude', source: 'Amazon Bedrock, Claude models: maxTokens 0 (pre-warming)' },
};

/** Null when `model` on `provider` accepts a pre-warm request, else why not. */
export function prewarmingUnsupportedReason(provider: ProviderId, model: string): string | null {
  const entry = providerEntry(provider);
  const row = PREWARMING_WIRES[entry.wire];
  if (!row) return `${provider} (${entry.wire}) has no pre-warm request: its cache is not kept by pings`;
  const upstream = entry.wire === 'bedrock-converse' ? bedrockBaseModelId(model) : entry.route(model).upstreamModel;
  if (!upstream.startsWith(row.modelPrefix)) {
    return `${model} on ${provider} has no pre-warm request (only Claude models accept max_tokens: 0)`;
  }
  return null;
}

/**
 * Null when a request with these parameters can take a pre-warm request, else why not: Anthropic
 * refuses `max_tokens: 0` with extended thinking (adaptive included), and a ping without the
 * request's thinking setting would not read its messages cache (thinking is part of its key).
 */
export function prewarmingParamsReason(params: { thinking?: ThinkingConfig | undefined }): string | null {
  const thinking = params.thinking;
  if (thinking === undefined || thinking.type === 'disabled') return null;
  return 'the request uses extended thinking, which max_tokens: 0 does not allow; a ping without it would not read the messages cache';
}

/**
 * Throw `KeepWarmUnsupportedError` when `model` on `provider` has no pre-warm request.
 *
 * @example
 * assertPrewarming('openai', 'gpt-5'); // throws KeepWarmUnsupportedError
 */
export function assertPrewarming(provider: ProviderId, model: string): void {
  const reason = prewarmingUnsupportedReason(provider, model);
  if (reason) throw new KeepWarmUnsupportedError(reason);
}
