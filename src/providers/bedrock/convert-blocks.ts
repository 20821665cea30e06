import type {
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  ImageFormat,
  Tool,
  ToolResultContentBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { canonicalize } from '../../model/canonical-json.js';
import type {
  AssistantContentBlock,
  DocumentBlock as CanonicalDocument,
  ImageBlock as CanonicalImage,
  ToolDefinition,
  UserContentBlock,
} from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import { assertNever } from '../../model/validate.js';

const IMAGE_FORMATS: Record<string, ImageFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * A tool definition as a Converse `toolSpec`. The schema goes through canonical JSON so key
 * order from MCP servers never changes the cached tools prefix.
 */
export function convertToolToBedrock(tool: ToolDefinition): Tool {
  const json = canonicalize(tool.inputSchema);
  if (tool.description.length === 0) return { toolSpec: { name: tool.name, inputSchema: { json } } };
  return { toolSpec: { name: tool.name, description: tool.description, inputSchema: { json } } };
}

/** What a tool result without output carries on Converse, where a result needs a non-empty block. */
export const EMPTY_TOOL_RESULT_TEXT = '(no output)';

/**
 * One canonical content block as a Converse content block, or `null` for an unsigned thinking
 * block (Claude requires the signature back; such blocks come from other providers). Signed
 * reasoning is copied field for field.
 */
export function convertBlockToBedrock(block: UserContentBlock | AssistantContentBlock, path: string): ContentBlock | null {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'image':
      return { image: convertImage(block, path) };
    case 'document':
      return { document: convertDocument(block, path) };
    case 'tool_use':
      return { toolUse: { toolUseId: block.id, name: block.name, input: canonicalize(block.input) } };
    case 'tool_result': {
      const content: ToolResultContentBlock[] = block.content.map((inner, index) =>
        inner.type === 'text' ? { text: inner.text } : { image: convertImage(inner, `${path}.content[${index}]`) },
      );
      // Converse rejects an empty content list, and Claude an empty text block (inside a result
      // too: "text content blocks must be non-empty"): a result without output says so in words.
      if (content.length === 0) content.push({ text: EMPTY_TOOL_RESULT_TEXT });
      return {
        toolResult: { toolUseId: block.toolUseId, content, ...(block.isError === true ? { status: 'error' as const } : {}) },
      };
    }
    case 'thinking':
      if (block.signature === undefined) return null;
      return { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } };
    case 'redacted_thinking':
      return { reasoningContent: { redactedContent: Buffer.from(block.data, 'base64') } };
    default:
      return assertNever(block);
  }
}

function convertImage(block: CanonicalImage, path: string): ImageBlock {
  const source = block.source;
  if (source.kind === 'url') {
    if (source.url.startsWith('s3://')) {
      return { format: formatFromName(source.url, path), source: { s3Location: { uri: source.url } } };
    }
    throw new ValidationError(
      `${path}.source`,
      'base64 data or an s3:// URL (Converse does not fetch http URLs)',
      `got ${source.url}`,
    );
  }
  const format = IMAGE_FORMATS[source.mediaType];
  if (!format) {
    throw new ValidationError(
      `${path}.source.mediaType`,
      `one of ${Object.keys(IMAGE_FORMATS).join(', ')}`,
      `got ${source.mediaType}`,
    );
  }
  return { format, source: { bytes: Buffer.from(source.data, 'base64') } };
}

function formatFromName(url: string, path: string): ImageFormat {
  const extension = url.split('.').at(-1)?.toLowerCase() ?? '';
  const format = IMAGE_FORMATS[`image/${extension === 'jpg' ? 'jpeg' : extension}`];
  if (!format)
    throw new ValidationError(`${path}.source.url`, 'an image name ending in .png, .jpg, .jpeg, .gif or .webp', `got ${url}`);
  return format;
}

/** Converse document names allow letters, digits, single spaces, hyphens, parentheses and brackets. */
function documentName(title: string | undefined, path: string): string {
  const cleaned = (title ?? '')
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > 0
    ? cleaned
    : `document ${path
        .replace(/[^0-9]+/g, ' ')
        .trim()
        .replace(/ /g, '-')}`;
}

function convertDocument(block: CanonicalDocument, path: string): DocumentBlock {
  const source = block.source;
  const name = documentName(block.title, path);
  switch (source.kind) {
    case 'text':
      return { format: 'txt', name, source: { text: source.data } };
    case 'base64':
      if (source.mediaType !== 'application/pdf') {
        throw new ValidationError(`${path}.source.mediaType`, 'application/pdf for base64 documents', `got ${source.mediaType}`);
      }
      return { format: 'pdf', name, source: { bytes: Buffer.from(source.data, 'base64') } };
    case 'url':
      if (source.url.startsWith('s3://')) return { format: 'pdf', name, source: { s3Location: { uri: source.url } } };
      throw new ValidationError(
        `${path}.source`,
        'base64 data, text or an s3:// URL (Converse does not fetch http URLs)',
        `got ${source.url}`,
      );
    default:
      return assertNever(source);
  }
}
