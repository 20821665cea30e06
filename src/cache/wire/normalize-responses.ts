import { DEFAULT_MEDIA_TOKENS } from '../../tokens/media-token-estimates.js';
import { isRecord, type JsonRecord, jsonText, stringField, withoutKeys } from './json-helpers.js';
import { wireParamUnit, wireUnit } from './normalize-anthropic.js';
import { markerTtl, openAICacheOptions } from './normalize-chat.js';
import { toolCountable, toolResultCountable, toolUseCountable } from './wire-countable.js';
import type { NormalizedWireBody, WireUnit } from './wire-unit.js';

const MARKER_KEYS = ['prompt_cache_breakpoint'] as const;
/** Responses parameters that change the prefix from its first byte (prompt-caching guide). */
const PREFIX_PARAMS = ['reasoning', 'parallel_tool_calls', 'text', 'prompt_cache_key'] as const;

/**
 * Units of a Responses API body: parameters, tools, `instructions` and leading
 * system/developer input items (system zone), then every input item or message part.
 */
export function normalizeResponsesBody(body: JsonRecord): NormalizedWireBody {
  const model = stringField(body, 'model') ?? '';
  const units: WireUnit[] = [wireParamUnit('model', jsonText(body.model))];
  for (const key of PREFIX_PARAMS) units.push(wireParamUnit(key, jsonText(body[key])));
  const tools = Array.isArray(body.tools) ? body.tools : [];
  tools.forEach((tool, index) => {
    const text = jsonText(tool);
    units.push({
      ...wireUnit('tools', `tools[${index}]`, text, null, null, text, 'json', 'tool', null),
      countable: toolCountable(isRecord(tool) ? tool : {}),
    });
  });
  const instructions = stringField(body, 'instructions');
  if (instructions) {
    units.push(
      wireUnit('system', 'instructions', jsonText(instructions), 'instructions', null, instructions, undefined, 'text', null),
    );
  }
  if (typeof body.input === 'string') {
    units.push(
      wireUnit(
        'messages',
        'input',
        jsonText({ type: 'input_text', text: body.input }),
        'user',
        0,
        body.input,
        undefined,
        'text',
        null,
      ),
    );
  } else if (Array.isArray(body.input)) {
    let leadingSystem = true;
    body.input.forEach((item, index) => {
      const record = isRecord(item) ? item : {};
      const role = stringField(record, 'role');
      leadingSystem = leadingSystem && (role === 'system' || role === 'developer');
      units.push(...inputItemUnits(record, index, leadingSystem ? 'system' : 'messages'));
    });
  }
  return { format: 'openai-responses', model, units, automaticBreakpoint: null, warnings: [], ...openAICacheOptions(body) };
}

function inputItemUnits(item: JsonRecord, index: number, zone: 'system' | 'messages'): WireUnit[] {
  const path = `input[${index}]`;
  const role = stringField(item, 'role');
  const type = stringField(item, 'type') ?? (role ? 'message' : 'unknown');
  if (type === 'message' && role) {
    if (typeof item.content === 'string') {
      return [
        wireUnit(
          zone,
          `${path}.content`,
          jsonText({ type: 'input_text', text: item.content }),
          role,
          index,
          item.content,
          undefined,
          'text',
          null,
        ),
      ];
    }
    const parts = Array.isArray(item.content) ? item.content : [];
    return parts.map((part, partIndex) => {
      const record = isRecord(part) ? part : {};
      const text = jsonText(withoutKeys(record, MARKER_KEYS));
      const partPath = `${path}.content[${partIndex}]`;
      if (record.type === 'input_image') {
        return {
          ...wireUnit(zone, partPath, text, role, index, '', 'prose', 'image', markerTtl(record)),
          fixedTokens: DEFAULT_MEDIA_TOKENS.image,
        };
      }
      if (record.type === 'input_file') {
        return {
          ...wireUnit(zone, partPath, text, role, index, '', 'prose', 'document', markerTtl(record)),
          fixedTokens: DEFAULT_MEDIA_TOKENS.document,
        };
      }
      return wireUnit(zone, partPath, text, role, index, stringField(record, 'text') ?? '', undefined, 'text', markerTtl(record));
    });
  }
  const text = jsonText(withoutKeys(item, MARKER_KEYS));
  switch (type) {
    case 'function_call': {
      const name = stringField(item, 'name') ?? '';
      const tokenText = `${name}${stringField(item, 'arguments') ?? ''}`;
      return [
        {
          ...wireUnit(zone, path, text, 'assistant', index, tokenText, 'json', 'tool_use', null),
          countable: toolUseCountable(name, item.arguments ?? ''),
        },
      ];
    }
    case 'function_call_output': {
      const { texts, fixedTokens } = outputParts(item.output);
      return [
        {
          ...wireUnit(zone, path, text, 'tool', index, texts.join(''), undefined, 'tool_result', null),
          countable: toolResultCountable(texts),
          fixedTokens,
        },
      ];
    }
    case 'reasoning':
      return [wireUnit(zone, path, text, 'assistant', index, text, 'json', 'thinking', null)];
    default:
      return [wireUnit(zone, path, text, role, index, text, undefined, 'other', null)];
  }
}

/** A function call's output: a string, or a list of `input_text` / `input_image` / `input_file` parts. */
function outputParts(output: unknown): { texts: string[]; fixedTokens: number } {
  if (typeof output === 'string') return { texts: [output], fixedTokens: 0 };
  if (!Array.isArray(output)) return { texts: [jsonText(output)], fixedTokens: 0 };
  const texts: string[] = [];
  let fixedTokens = 0;
  for (const part of output) {
    if (!isRecord(part)) continue;
    if (part.type === 'input_text') texts.push(stringField(part, 'text') ?? '');
    else if (part.type === 'input_image') fixedTokens += DEFAULT_MEDIA_TOKENS.image;
    else if (part.type === 'input_file') fixedTokens += DEFAULT_MEDIA_TOKENS.document;
    else texts.push(jsonText(part));
  }
  return { texts, fixedTokens };
}
