import { ValidationError } from '../../model/errors.js';
import { sha256 } from '../../model/hash.js';
import { stableText } from './plan-prompt-breakpoints.js';
import type { MiddlewareCallParams } from './prompt-view.js';

/**
 * Turn (user messages so far, from 1) and step (assistant messages since the last user message;
 * a final assistant message is a prefill this call continues, not an earlier step).
 */
export function turnAndStep(view: MiddlewareCallParams): { turn: number; step: number } {
  const turn = view.prompt.filter((message) => message.role === 'user').length;
  const lastUser = view.prompt.findLastIndex((message) => message.role === 'user');
  const end = view.prompt.at(-1)?.role === 'assistant' ? -1 : undefined;
  const step = view.prompt.slice(lastUser + 1, end).filter((message) => message.role === 'assistant').length;
  return { turn, step };
}

/** Turn-tail texts from an option value (a string or a list), empty strings dropped. */
export function tailTexts(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const texts: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [value];
  texts.forEach((text, index) => {
    if (typeof text !== 'string') throw new ValidationError(`tail[${index}]`, 'a string', `got ${typeof text}`);
  });
  return (texts as string[]).filter((text) => text !== '');
}

/**
 * A conversation's identity when the caller gives none: the model, the tool names and the first
 * user message, never the system text (which agents often rebuild every call).
 */
export function defaultConversationId(modelId: string, view: MiddlewareCallParams): string {
  const firstUser = view.prompt.find((message) => message.role === 'user');
  const tools = (view.tools ?? []).map((tool) => tool.name);
  return sha256(stableText({ modelId, tools, firstUser: firstUser?.content ?? null })).slice(0, 24);
}
