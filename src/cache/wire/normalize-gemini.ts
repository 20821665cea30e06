import { sha256 } from '../../model/hash.js';
import { isRecord, type JsonRecord, jsonText } from './json-helpers.js';
import { wireParamUnit, wireUnit } from './normalize-anthropic.js';
import { toolCountable, toolResultCountable, toolUseCountable } from './wire-countable.js';
import type { NormalizedWireBody, WireUnit } from './wire-unit.js';

/** Estimated tokens of an inline image or file part (Gemini bills 258 tokens per image up to 384 px). */
const MEDIA_PART_TOKENS = 258;

/**
 * Units of a Gemini `GenerateContentParameters` body in the order the model reads its prefix:
 * the model, the explicit cache the body reads (`config.cachedContent`, whose content is not in
 * the body), the system instruction's parts, the function declarations, the tool config, then
 * every part of every content (role `user` or `model`).
 *
 * @example
 * normalizeGeminiBody(body).units.map((unit) => unit.path); // ['model', 'config.systemInstruction.parts[0]', ...]
 */
export function normalizeGeminiBody(body: JsonRecord): NormalizedWireBody {
  const config = isRecord(body.config) ? body.config : {};
  const model = typeof body.model === 'string' ? body.model : '';
  const units: WireUnit[] = [wireParamUnit('model', jsonText(body.model))];
  units.push(wireParamUnit('config.cachedContent', jsonText(config.cachedContent)));
  const system = config.systemInstruction;
  const systemParts =
    typeof system === 'string' ? [{ text: system }] : isRecord(system) && Array.isArray(system.parts) ? system.parts : [];
  systemParts.forEach((part, index) => {
    units.push(partUnit('system', `config.systemInstruction.parts[${index}]`, null, null, part));
  });
  const tools = Array.isArray(config.tools) ? config.tools : [];
  tools.forEach((tool, toolIndex) => {
    const declarations = isRecord(tool) && Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : [tool];
    declarations.forEach((declaration, index) => {
      const record = isRecord(declaration) ? declaration : {};
      const text = jsonText(record);
      const path = `config.tools[${toolIndex}].functionDeclarations[${index}]`;
      units.push({
        ...wireUnit('tools', path, text, null, null, text, 'json', 'tool', null),
        countable: toolCountable({ ...record, parameters: record.parametersJsonSchema ?? record.parameters }),
      });
    });
  });
  units.push(wireParamUnit('config.toolConfig', jsonText(config.toolConfig)));
  const contents = Array.isArray(body.contents) ? body.contents : [];
  contents.forEach((content, contentIndex) => {
    const record = isRecord(content) ? content : {};
    const role = typeof record.role === 'string' ? record.role : 'user';
    const parts = Array.isArray(record.parts) ? record.parts : [];
    parts.forEach((part, index) => {
      units.push(partUnit('messages', `contents[${contentIndex}].parts[${index}]`, role, contentIndex, part));
    });
  });
  return { format: 'gemini', model, units, automaticBreakpoint: null, warnings: [], retention: null, promptCacheMode: null };
}

function partUnit(
  zone: WireUnit['zone'],
  path: string,
  role: string | null,
  messageIndex: number | null,
  part: unknown,
): WireUnit {
  const record = isRecord(part) ? part : {};
  const json = jsonText(record);
  if (typeof record.text === 'string')
    return wireUnit(zone, path, json, role, messageIndex, record.text, undefined, 'text', null);
  if (record.inlineData !== undefined || record.fileData !== undefined) {
    // Media bytes are compared by hash; their tokens are a fixed estimate.
    return {
      ...wireUnit(zone, path, sha256(json), role, messageIndex, '', 'prose', 'image', null),
      fixedTokens: MEDIA_PART_TOKENS,
    };
  }
  if (isRecord(record.functionCall)) {
    const call = record.functionCall;
    const name = typeof call.name === 'string' ? call.name : '';
    return {
      ...wireUnit(zone, path, json, role, messageIndex, `${name}${jsonText(call.args)}`, 'json', 'tool_use', null),
      countable: toolUseCountable(name, call.args),
    };
  }
  if (isRecord(record.functionResponse)) {
    const response = record.functionResponse.response;
    const text = jsonText(response);
    const unit = wireUnit(zone, path, json, role, messageIndex, text, undefined, 'tool_result', null);
    // A result sent as `{ output }` or `{ error }` (what the adapter writes) is counted as the
    // tool result's text, as the other wires count theirs; the JSON wrapper and its escaping are
    // the wire's framing, which no count model renders.
    const only = isRecord(response) ? Object.entries(response) : [];
    const [key, value] = only.length === 1 ? (only[0] as [string, unknown]) : ['', null];
    if ((key === 'output' || key === 'error') && typeof value === 'string') {
      return { ...unit, countable: toolResultCountable([value]) };
    }
    return unit;
  }
  return wireUnit(zone, path, json, role, messageIndex, json, 'json', 'other', null);
}
