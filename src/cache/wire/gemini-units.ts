import { sha256 } from '../../model/hash.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { isRecord, type JsonRecord, jsonText } from './json-helpers.js';

/** One comparable piece of a Gemini request, in the order the model reads its prefix. */
export interface GeminiUnit {
  /** `config.systemInstruction.parts[0]`, `config.tools[0].functionDeclarations[1]`, `contents[3].parts[0]`. */
  path: string;
  /** Bytes compared between requests (the part's JSON, with the content's role). */
  identity: string;
  /** Text counted for tokens. */
  text: string;
  kind: 'prose' | 'json';
  /** An inline or referenced image / file: counted at a fixed estimate. */
  media: boolean;
}

/** Estimated tokens of an inline image or file part (Gemini bills 258 tokens per image up to 384 px). */
const MEDIA_PART_TOKENS = 258;

/**
 * The units of a `GenerateContentParameters` body in prefix order: the model, the system
 * instruction's parts, the function declarations, the tool config, then every part of every
 * content. A body that reads an explicit cache (`config.cachedContent`) starts with that
 * cache's name instead of the parts the cache holds.
 *
 * @example
 * geminiUnits(body).map((unit) => unit.path);
 */
export function geminiUnits(body: JsonRecord): GeminiUnit[] {
  const config = isRecord(body.config) ? body.config : {};
  const units: GeminiUnit[] = [
    { path: 'model', identity: `model:${jsonText(body.model)}`, text: '', kind: 'json', media: false },
  ];
  if (typeof config.cachedContent === 'string') {
    units.push({ path: 'config.cachedContent', identity: `cache:${config.cachedContent}`, text: '', kind: 'json', media: false });
  }
  const system = config.systemInstruction;
  const systemParts =
    typeof system === 'string' ? [{ text: system }] : isRecord(system) && Array.isArray(system.parts) ? system.parts : [];
  systemParts.forEach((part, index) => {
    units.push(partUnit(`config.systemInstruction.parts[${index}]`, 'system', part));
  });
  const tools = Array.isArray(config.tools) ? config.tools : [];
  tools.forEach((tool, toolIndex) => {
    const declarations = isRecord(tool) && Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : [tool];
    declarations.forEach((declaration, index) => {
      const text = jsonText(declaration);
      units.push({
        path: `config.tools[${toolIndex}].functionDeclarations[${index}]`,
        identity: `tool:${text}`,
        text,
        kind: 'json',
        media: false,
      });
    });
  });
  if (config.toolConfig !== undefined) {
    units.push({
      path: 'config.toolConfig',
      identity: `toolConfig:${jsonText(config.toolConfig)}`,
      text: '',
      kind: 'json',
      media: false,
    });
  }
  const contents = Array.isArray(body.contents) ? body.contents : [];
  contents.forEach((content, contentIndex) => {
    const record = isRecord(content) ? content : {};
    const role = typeof record.role === 'string' ? record.role : 'user';
    const parts = Array.isArray(record.parts) ? record.parts : [];
    parts.forEach((part, index) => {
      units.push(partUnit(`contents[${contentIndex}].parts[${index}]`, role, part));
    });
  });
  return units;
}

function partUnit(path: string, role: string, part: unknown): GeminiUnit {
  const record = isRecord(part) ? part : {};
  const json = jsonText(record);
  if (typeof record.text === 'string')
    return { path, identity: `${role}\u0000${json}`, text: record.text, kind: 'prose', media: false };
  if (record.inlineData !== undefined || record.fileData !== undefined) {
    return { path, identity: `${role}\u0000${sha256(json)}`, text: '', kind: 'json', media: false };
  }
  return { path, identity: `${role}\u0000${json}`, text: json, kind: 'json', media: false };
}

/** Tokens of a unit: its text counted, media parts at a fixed estimate. */
export function geminiUnitTokens(unit: GeminiUnit, counter: TokenCounter): number {
  if (unit.media) return MEDIA_PART_TOKENS;
  return unit.text.length > 0 ? counter.countText(unit.text, unit.kind) : 0;
}
