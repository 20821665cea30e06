/**
 * Wire APIs Cachet speaks, in registry order. Names are also the CLI's `--provider` values.
 *
 * The ids live here rather than in `registry.ts` so that the adapter and entry types can name
 * them without importing the registry (which imports every provider): the registry checks at
 * compile time that it has exactly one entry per id.
 */
export const PROVIDER_IDS = [
  'anthropic',
  'openai-chat',
  'openai-responses',
  'openrouter',
  'openai-compatible',
  'bedrock',
  'gemini',
  'deepseek',
] as const;

/** A wire API Cachet speaks. */
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Whether a string names a registered provider. */
export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}
