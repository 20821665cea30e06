/**
 * The parts of an AI SDK language-model call (`LanguageModelV3CallOptions` in `ai` 6,
 * `LanguageModelV4CallOptions` in `ai` 7) that the middleware reads and rewrites. Both versions
 * share this shape; typing it structurally lets one middleware serve both without importing
 * either version's types into the published declarations.
 */
export type ProviderOptionsRecord = Record<string, Record<string, unknown> | undefined>;

export interface PromptPart {
  type: string;
  text?: string;
  input?: unknown;
  output?: unknown;
  toolName?: string;
  toolCallId?: string;
  providerOptions?: ProviderOptionsRecord;
}

export interface PromptMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | PromptPart[];
  providerOptions?: ProviderOptionsRecord;
}

export interface PromptTool {
  type: string;
  name: string;
  description?: string;
  inputSchema?: unknown;
  providerOptions?: ProviderOptionsRecord;
}

export interface MiddlewareCallParams {
  prompt: PromptMessage[];
  tools?: PromptTool[];
  providerOptions?: ProviderOptionsRecord;
}

/** What the middleware needs from the wrapped model. */
export interface MiddlewareModel {
  readonly provider: string;
  readonly modelId: string;
}

/** Reads a marker under `providerOptions.anthropic` (either spelling the provider accepts). */
export function anthropicMarkerOf(options: ProviderOptionsRecord | undefined): { type: string; ttl?: string } | null {
  const anthropic = options?.anthropic;
  const marker = anthropic?.cacheControl ?? anthropic?.cache_control;
  return typeof marker === 'object' && marker !== null ? (marker as { type: string; ttl?: string }) : null;
}

/** A copy of `options` without Anthropic markers; `undefined` when nothing else is left. */
export function withoutAnthropicMarker(options: ProviderOptionsRecord | undefined): ProviderOptionsRecord | undefined {
  if (!options?.anthropic) return options;
  const { cacheControl: _camel, cache_control: _snake, ...rest } = options.anthropic;
  const copy: ProviderOptionsRecord = { ...options };
  if (Object.keys(rest).length > 0) copy.anthropic = rest;
  else delete copy.anthropic;
  return Object.keys(copy).length > 0 ? copy : undefined;
}

/** A copy of `options` with an Anthropic marker set. */
export function withAnthropicMarker(
  options: ProviderOptionsRecord | undefined,
  marker: { type: 'ephemeral'; ttl?: '1h' },
): ProviderOptionsRecord {
  return { ...options, anthropic: { ...options?.anthropic, cacheControl: marker } };
}
