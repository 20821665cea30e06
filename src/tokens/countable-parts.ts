import { canonicalJson } from '../model/canonical-json.js';
import type { MediaSource } from '../model/content.js';
import type { JsonValue } from '../model/json.js';
import { assertNever } from '../model/validate.js';
import type { MediaTokenEstimates } from './media-token-estimates.js';
import type { ContentKind, CountableItem } from './token-counter.js';

/** One run of text to tokenize, with its kind when the block's type already says it. */
export interface TextPart {
  text: string;
  kind: ContentKind | undefined;
}

/**
 * The text a block contributes to a prompt, and the fixed token cost of its media. Tool
 * inputs and schemas are counted in their canonical JSON, the bytes Cachet sends.
 */
export function countableParts(item: CountableItem, media: MediaTokenEstimates): { texts: TextPart[]; fixedTokens: number } {
  if (!('type' in item)) {
    if ('name' in item) {
      // A tool definition: name, description and schema all reach the model.
      return {
        texts: [
          { text: item.name, kind: 'code' },
          { text: item.description, kind: 'prose' },
          { text: canonicalJson(item.inputSchema as JsonValue), kind: 'json' },
        ],
        fixedTokens: 0,
      };
    }
    return { texts: [{ text: item.text, kind: undefined }], fixedTokens: 0 };
  }
  switch (item.type) {
    case 'text':
      return { texts: [{ text: item.text, kind: undefined }], fixedTokens: 0 };
    case 'image':
      return { texts: [], fixedTokens: imageTokens(item.source, media) };
    case 'document':
      if (item.source.kind === 'text') return { texts: [{ text: item.source.data, kind: undefined }], fixedTokens: 0 };
      return { texts: item.title ? [{ text: item.title, kind: 'prose' }] : [], fixedTokens: media.document };
    case 'tool_use':
      return {
        texts: [
          { text: item.name, kind: 'code' },
          { text: canonicalJson(item.input), kind: 'json' },
        ],
        fixedTokens: 0,
      };
    case 'tool_result': {
      const texts: TextPart[] = [];
      let fixedTokens = 0;
      for (const inner of item.content) {
        if (inner.type === 'text') texts.push({ text: inner.text, kind: undefined });
        else fixedTokens += imageTokens(inner.source, media);
      }
      return { texts, fixedTokens };
    }
    case 'thinking':
      return { texts: [{ text: item.thinking, kind: 'prose' }], fixedTokens: 0 };
    case 'redacted_thinking':
      // Opaque encrypted data: the provider bills the hidden reasoning, not these characters.
      // Its length is the only size signal available.
      return { texts: [{ text: item.data, kind: 'json' }], fixedTokens: 0 };
    default:
      return assertNever(item);
  }
}

function imageTokens(source: MediaSource, media: MediaTokenEstimates): number {
  if (source.kind !== 'base64' || !media.measureImage) return media.image;
  return media.measureImage(source.data, source.mediaType) ?? media.image;
}
