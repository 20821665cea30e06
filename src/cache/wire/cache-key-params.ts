/**
 * Which request parameters are part of a Claude model's cache key, read from the model table
 * (`AnthropicModelRow.cacheKeyParams`), never from a fixed list: on the Claude 5 generation
 * `output_config.effort` is outside the key, so an effort change is no `params-changed` miss.
 */
import { resolveAnthropicModel } from '../../providers/anthropic/models.js';
import { isRecord, type JsonRecord } from './json-helpers.js';

/**
 * The value at a dotted path of a body (`output_config.format`); undefined when any step is absent.
 *
 * @example
 * valueAtPath({ output_config: { effort: 'low' } }, 'output_config.effort'); // 'low'
 */
export function valueAtPath(body: JsonRecord, path: string): unknown {
  let value: unknown = body;
  for (const step of path.split('.')) {
    if (!isRecord(value)) return undefined;
    value = value[step];
  }
  return value;
}

/**
 * The message-level cache-key parameters of an Anthropic Messages body for its model, each with
 * the value the body carries (paths as the model row names them).
 *
 * @example
 * anthropicKeyParams({ model: 'claude-opus-5-5', output_config: { effort: 'low' } }, 'claude-opus-5-5');
 * // [['tool_choice', undefined], ['thinking', undefined], ['output_config.format', undefined]]
 */
export function anthropicKeyParams(body: JsonRecord, model: string): Array<[path: string, value: unknown]> {
  return resolveAnthropicModel(model).cacheKeyParams.map((path) => [path, valueAtPath(body, path)]);
}

/**
 * The same parameters as a Chat Completions body on an Anthropic route carries them (OpenRouter's
 * `anthropic/*`): `tool_choice`, and `reasoning`, whose `effort` becomes Anthropic's
 * `output_config.effort` and so leaves the key wherever the model's row leaves effort out.
 *
 * @example
 * routedAnthropicKeyParams({ reasoning: { effort: 'low' } }, 'claude-opus-5-5'); // [['tool_choice', undefined], ['reasoning', {}]]
 */
export function routedAnthropicKeyParams(body: JsonRecord, anthropicModel: string): Array<[path: string, value: unknown]> {
  const keys = resolveAnthropicModel(anthropicModel).cacheKeyParams;
  const effortInKey = keys.includes('output_config') || keys.includes('output_config.effort');
  const reasoning = body.reasoning;
  const keptReasoning =
    effortInKey || !isRecord(reasoning)
      ? reasoning
      : Object.fromEntries(Object.entries(reasoning).filter(([field]) => field !== 'effort'));
  return [
    ['tool_choice', body.tool_choice],
    ['reasoning', keptReasoning],
  ];
}
