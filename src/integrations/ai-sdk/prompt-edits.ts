import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { ValidationError } from '../../model/errors.js';
import { acceptsLateInstruction } from '../shared/late-instruction.js';
import { partPath } from '../shared/plan-prompt-breakpoints.js';
import type { MiddlewareCallParams, PromptMessage, PromptPart } from '../shared/prompt-view.js';

/** The AI SDK prompt edits the middleware makes besides markers: options read, tail appended. */

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function providerOf(provider: string): 'anthropic' | 'openai' | 'other' {
  if (provider.startsWith('anthropic')) return 'anthropic';
  if (provider.startsWith('openai')) return 'openai';
  return 'other';
}

export function stringOption(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new ValidationError(path, 'a non-empty string', `got ${JSON.stringify(value)}`);
  return value;
}

export function withoutCachetOptions(params: MiddlewareCallParams): MiddlewareCallParams {
  if (!params.providerOptions?.cachet) return params;
  const { cachet: _cachet, ...providerOptions } = params.providerOptions;
  return { ...params, providerOptions };
}

/** The warning for a request tail left out because the prompt ends with an assistant prefill. */
export const TAIL_AFTER_PREFILL: AdapterWarning = adapterWarning(
  'tail-not-placed',
  'the request tail was not sent: the prompt ends with an assistant message (a prefill), which a tail after it would end',
);

/**
 * Appends the turn tail after the persisted history and returns the paths of the parts it added.
 * A prompt that ends with an assistant message (a prefill the model continues) gets no request
 * tail (`placed: false`): a user message after it would end the prefill, text inside it would
 * change it. Turn-scoped texts live in the turn's user message and are not affected.
 */
export function appendTail(
  params: MiddlewareCallParams,
  texts: readonly string[],
  provider: 'anthropic' | 'openai' | 'other',
): { params: MiddlewareCallParams; tailParts: Set<string>; placed: boolean } {
  const tailParts = new Set<string>();
  if (texts.length === 0) return { params, tailParts, placed: true };
  if (params.prompt.at(-1)?.role === 'assistant') return { params, tailParts, placed: false };
  const parts: PromptPart[] = texts.map((text) => ({ type: 'text', text }));
  const prompt = [...params.prompt];
  const last = prompt.at(-1);
  if (last?.role === 'user' && typeof last.content !== 'string') {
    prompt[prompt.length - 1] = { ...last, content: [...last.content, ...parts] };
    for (let index = 0; index < parts.length; index++) tailParts.add(partPath(prompt.length - 1, last.content.length + index));
  } else if (acceptsLateInstruction(provider)) {
    prompt.push({ role: 'system', content: texts.join('\n\n') } satisfies PromptMessage);
  } else {
    prompt.push({ role: 'user', content: parts });
    for (let index = 0; index < parts.length; index++) tailParts.add(partPath(prompt.length - 1, index));
  }
  return { params: { ...params, prompt }, tailParts, placed: true };
}
