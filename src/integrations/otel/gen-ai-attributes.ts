/**
 * OpenTelemetry GenAI semantic-convention attribute names Cachet writes, as published in
 * `@opentelemetry/semantic-conventions` 1.45.0 (incubating entry point; the GenAI group has
 * since moved to the open-telemetry/semantic-conventions-genai repository with the same names,
 * status Development). Kept as plain strings so the exporter depends on `@opentelemetry/api`
 * only; a test checks them against the package.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  conversationId: 'gen_ai.conversation.id',
  /** Every input token, cached ones included (the convention says SHOULD include them). */
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  reasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
} as const;

/** OpenInference names (Arize Phoenix), written only with `openInference: true`. */
export const OPEN_INFERENCE = {
  spanKind: 'openinference.span.kind',
  modelName: 'llm.model_name',
  provider: 'llm.provider',
  sessionId: 'session.id',
  promptTokens: 'llm.token_count.prompt',
  completionTokens: 'llm.token_count.completion',
  totalTokens: 'llm.token_count.total',
  cacheRead: 'llm.token_count.prompt_details.cache_read',
  cacheWrite: 'llm.token_count.prompt_details.cache_write',
} as const;

/** Cachet's own attributes, under `cachet.*`. */
export const CACHET = {
  turn: 'cachet.turn',
  step: 'cachet.step',
  breakpoints: 'cachet.breakpoints',
  breakpointReasons: 'cachet.breakpoint_reasons',
  prefixHash: 'cachet.prefix_hash',
  sharedBlocks: 'cachet.shared_blocks',
  blockCount: 'cachet.block_count',
  zoneTokens: (zone: string) => `cachet.zone_tokens.${zone}`,
  warnings: 'cachet.warnings',
  cacheWrite5m: 'cachet.usage.cache_write_5m_tokens',
  cacheWrite1h: 'cachet.usage.cache_write_1h_tokens',
  uncachedInput: 'cachet.usage.uncached_input_tokens',
  costUsd: 'cachet.cost_usd',
  uncachedCostUsd: 'cachet.uncached_cost_usd',
  breakCause: 'cachet.break.cause',
  breakZone: 'cachet.break.zone',
  breakPath: 'cachet.break.path',
  breakByteOffset: 'cachet.break.byte_offset',
  missedTokens: 'cachet.break.missed_tokens',
  incomplete: 'cachet.incomplete',
} as const;
