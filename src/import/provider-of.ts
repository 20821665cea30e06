import type { ProviderId } from '../providers/adapter.js';

/**
 * The wire API behind a harness's provider name, for prices and cache rules; null when the
 * name is not one Cachet prices (the request's cost is then reported as unknown, not guessed).
 */
const PROVIDER_NAMES: Readonly<Record<string, ProviderId>> = {
  anthropic: 'anthropic',
  'anthropic-messages': 'anthropic',
  openai: 'openai-responses',
  'openai-responses': 'openai-responses',
  'openai-completions': 'openai-chat',
  openrouter: 'openrouter',
  google: 'gemini',
  gemini: 'gemini',
  'google-generative-ai': 'gemini',
  deepseek: 'deepseek',
  'amazon-bedrock': 'bedrock',
  bedrock: 'bedrock',
};

export function providerOfName(name: unknown): ProviderId | null {
  return typeof name === 'string' ? (PROVIDER_NAMES[name.toLowerCase()] ?? null) : null;
}
