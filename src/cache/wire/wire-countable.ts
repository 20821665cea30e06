import type { JsonObject } from '../../model/json.js';
import type { CountableItem } from '../../tokens/token-counter.js';
import { isRecord, type JsonRecord, stringField } from './json-helpers.js';
import type { WireUnit } from './wire-unit.js';

/**
 * The canonical block a wire unit's content corresponds to, so the cache models count it with
 * the same rules as `countRequestTokens` (`countableParts` + the counter's `countBlock`): free
 * text by its detected kind (prose, code or JSON), tool definitions as name, description and
 * schema, tool inputs as their JSON. The wire JSON's own framing (keys, `type` fields, the
 * `function` wrapper) is not counted: providers render tools and blocks into their own prompt
 * format, which neither count models.
 */
export function defaultCountable(
  kind: WireUnit['kind'],
  tokenText: string,
  tokenKind: WireUnit['tokenKind'],
): CountableItem | null {
  if (kind === 'param' || tokenText.length === 0) return null;
  if (kind === 'thinking') {
    return tokenKind === 'json' ? { type: 'redacted_thinking', data: tokenText } : { type: 'thinking', thinking: tokenText };
  }
  return { type: 'text', text: tokenText };
}

/** A wire tool definition (Anthropic `input_schema`, OpenAI `function.parameters` or flat `parameters`). */
export function toolCountable(tool: JsonRecord): CountableItem {
  const fn = isRecord(tool.function) ? tool.function : tool;
  const schema = fn.input_schema ?? fn.parameters;
  return {
    name: stringField(fn, 'name') ?? '',
    description: stringField(fn, 'description') ?? '',
    inputSchema: isRecord(schema) ? (schema as JsonObject) : {},
  };
}

/** A tool call: its name and its input (OpenAI sends the input as a JSON string). */
export function toolUseCountable(name: string, input: unknown): CountableItem {
  return { type: 'tool_use', id: '', name, input: toolInput(input) };
}

/** A tool result's text parts (media are the unit's fixed tokens). */
export function toolResultCountable(texts: readonly string[]): CountableItem | null {
  const content = texts.filter((text) => text.length > 0).map((text) => ({ type: 'text' as const, text }));
  return content.length === 0 ? null : { type: 'tool_result', toolUseId: '', content };
}

function toolInput(input: unknown): JsonObject {
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      if (isRecord(parsed)) return parsed as JsonObject;
    } catch {
      // Not JSON (a truncated or free-form argument string): counted as the string it is.
    }
    return { arguments: input };
  }
  return isRecord(input) ? (input as JsonObject) : {};
}
