import { DEFAULT_MEDIA_TOKENS } from '../../tokens/media-token-estimates.js';
import type { BlockCore } from './block-core-memo.js';
import { imageTokensFromSource } from './image-tokens.js';
import { flatJsonText, flatString, isRecord, type JsonRecord, jsonText, stringField, withoutKeys } from './json-helpers.js';
import { defaultCountable, toolCountable, toolResultCountable, toolUseCountable } from './wire-countable.js';
import type { WireUnit } from './wire-unit.js';

/** The keys a block's cache identity leaves out: its marker moves without changing what is cached. */
export const MARKER_KEYS = ['cache_control'] as const;

/** The core (canonical text, token text, kind) of one Anthropic tool definition, system block or content block. */
export function toolCore(tool: JsonRecord): BlockCore {
  const text = flatJsonText(withoutKeys(tool, MARKER_KEYS));
  return { text, tokenText: text, tokenKind: 'json', countable: toolCountable(tool), fixedTokens: 0, kind: 'tool' };
}

export function systemCore(block: JsonRecord): BlockCore {
  const tokenText = stringField(block, 'text') ?? '';
  const text = flatJsonText(withoutKeys(block, MARKER_KEYS));
  return {
    text,
    tokenText,
    tokenKind: undefined,
    countable: defaultCountable('text', tokenText, undefined),
    fixedTokens: 0,
    kind: 'text',
  };
}

export function blockCore(block: JsonRecord): BlockCore {
  const text = flatJsonText(withoutKeys(block, MARKER_KEYS));
  const core = (kind: WireUnit['kind'], tokenText: string, tokenKind: WireUnit['tokenKind']): BlockCore => ({
    text,
    tokenText,
    tokenKind,
    countable: defaultCountable(kind, tokenText, tokenKind),
    fixedTokens: 0,
    kind,
  });
  switch (block.type) {
    case 'text':
      return core('text', stringField(block, 'text') ?? '', undefined);
    case 'image':
      return { ...core('image', '', 'prose'), fixedTokens: imageTokensFromSource(block.source) };
    case 'document': {
      const source = isRecord(block.source) ? block.source : {};
      const data = source.type === 'text' ? (stringField(source, 'data') ?? '') : '';
      return { ...core('document', data, undefined), fixedTokens: data ? 0 : DEFAULT_MEDIA_TOKENS.document };
    }
    case 'tool_use': {
      const name = stringField(block, 'name') ?? '';
      return {
        ...core('tool_use', flatString(`${name}${jsonText(block.input)}`), 'json'),
        countable: toolUseCountable(name, block.input),
      };
    }
    case 'tool_result': {
      const { texts, images } = toolResultParts(block.content);
      return { ...core('tool_result', texts.join(''), undefined), countable: toolResultCountable(texts), fixedTokens: images };
    }
    case 'thinking':
      return core('thinking', stringField(block, 'thinking') ?? '', 'prose');
    case 'redacted_thinking':
      return core('thinking', stringField(block, 'data') ?? '', 'json');
    default:
      return core('other', text, undefined);
  }
}

function toolResultParts(content: unknown): { texts: string[]; images: number } {
  if (typeof content === 'string') return { texts: [content], images: 0 };
  if (!Array.isArray(content)) return { texts: [], images: 0 };
  const texts: string[] = [];
  let images = 0;
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === 'text') texts.push(stringField(part, 'text') ?? '');
    else if (part.type === 'image') images += imageTokensFromSource(part.source);
    else if (part.type === 'document') images += DEFAULT_MEDIA_TOKENS.document;
  }
  return { texts, images };
}
