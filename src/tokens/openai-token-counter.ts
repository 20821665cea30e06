import { requireOptional } from '../model/optional-dependency.js';
import { exactTokenCounter } from './exact-token-counter.js';
import type { MediaTokenEstimates } from './media-token-estimates.js';
import type { TokenCounter } from './token-counter.js';

/** The BPE encodings of OpenAI models that gpt-tokenizer ships and Cachet uses. */
export type OpenAIEncoding = 'o200k_base' | 'cl100k_base';

interface GptTokenizerEncoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
}

const loaded = new Map<OpenAIEncoding, GptTokenizerEncoding>();

/**
 * Load an encoding on first use (its rank table takes ~100 ms and tens of MB), never on import.
 * The CommonJS build is required synchronously so counting stays a synchronous call.
 */
function encodingFor(encoding: OpenAIEncoding): GptTokenizerEncoding {
  let api = loaded.get(encoding);
  if (!api) {
    api = requireOptional<GptTokenizerEncoding>(
      'gpt-tokenizer',
      `gpt-tokenizer/cjs/encoding/${encoding}`,
      `Exact ${encoding} token counts`,
    );
    loaded.set(encoding, api);
  }
  return api;
}

/**
 * Text such as `<|im_start|>` or `<|endoftext|>` inside a prompt is text, not a control token:
 * gpt-tokenizer throws on it by default, so every special token is explicitly allowed as text.
 */
const SPECIAL_TOKENS_AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Token ids of a text in an OpenAI encoding, special-token text encoded as plain text. */
export function encodeOpenAI(text: string, encoding: OpenAIEncoding = 'o200k_base'): number[] {
  return encodingFor(encoding).encode(text, SPECIAL_TOKENS_AS_TEXT);
}

const counters = new Map<OpenAIEncoding, TokenCounter>();

/**
 * An exact counter for OpenAI encodings (o200k_base: GPT-4o, GPT-4.1, GPT-5, o-series;
 * cl100k_base: GPT-4, GPT-3.5). One shared instance per encoding, so its block memo is shared.
 *
 * @example
 * const counter = openAITokenCounter('o200k_base');
 * counter.countText('Hello, world'); // 3
 */
export function openAITokenCounter(encoding: OpenAIEncoding = 'o200k_base', media?: MediaTokenEstimates): TokenCounter {
  const shared = media === undefined ? counters.get(encoding) : undefined;
  if (shared) return shared;
  const counter = exactTokenCounter(encoding, (text) => encodingFor(encoding).countTokens(text, SPECIAL_TOKENS_AS_TEXT), media);
  if (media === undefined) counters.set(encoding, counter);
  return counter;
}

/** @deprecated renamed `openAITokenCounter`; this alias goes in the next release. */
export const openAiTokenCounter = openAITokenCounter;
/** @deprecated renamed `encodeOpenAI`; this alias goes in the next release. */
export const encodeOpenAi = encodeOpenAI;
/** @deprecated renamed `OpenAIEncoding`; this alias goes in the next release. */
export type OpenAiEncoding = OpenAIEncoding;
