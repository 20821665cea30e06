import type {
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  TextBlockParam,
  Tool,
  ToolChoice,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { canonicalize } from '../../model/canonical-json.js';
import type { AssistantContentBlock, DocumentBlock, ImageBlock, ToolDefinition, UserContentBlock } from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import { deepFreeze, isDeepFrozen } from '../../model/freeze.js';
import type { JsonObject } from '../../model/json.js';
import type { GenerationParams } from '../../model/request.js';
import { assertNever } from '../../model/validate.js';

/** Image media types the Messages API accepts for base64 sources. */
const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * A tool definition on the wire. The input schema goes through canonical JSON so that key
 * order from MCP servers or `JSON.parse` never changes the cached tools prefix.
 */
export function convertTool(tool: ToolDefinition): Tool {
  const schema = canonicalObject(tool.inputSchema) as Tool.InputSchema;
  if (tool.description.length === 0) return { name: tool.name, input_schema: schema };
  return { name: tool.name, description: tool.description, input_schema: schema };
}

/**
 * Canonical copies of tool inputs and schemas, memoised per deep-frozen source object (persisted
 * blocks, a session's tools) and frozen, since one copy is shared by every body that carries it.
 * Any other object may be edited between requests, so it is copied afresh.
 */
const canonicalCopies = new WeakMap<object, JsonObject>();
function canonicalObject(value: JsonObject): JsonObject {
  if (!isDeepFrozen(value)) return canonicalize(value) as JsonObject;
  let copy = canonicalCopies.get(value);
  if (copy === undefined) {
    copy = deepFreeze(canonicalize(value));
    canonicalCopies.set(value, copy);
  }
  return copy;
}

export function textBlock(text: string): TextBlockParam {
  return { type: 'text', text };
}

/**
 * Wire blocks of persisted (frozen) canonical blocks, memoised per block and frozen: a session
 * sends the same history on every request, and sharing one wire object per block lets the
 * cache models and the break detector reuse what they derived from it (`normalizeAnthropicBody`
 * memoises per frozen wire block). A shared block is never edited: breakpoints go on a copy.
 */
const persistedWireBlocks = new WeakMap<object, ContentBlockParam | null>();

/**
 * `convertContentBlock`, shared and frozen for a frozen (persisted) block; a fresh block for any
 * other. Callers that add `cache_control` copy a frozen block first (copy-on-mark).
 */
export function convertPersistedBlock(block: UserContentBlock | AssistantContentBlock, path: string): ContentBlockParam | null {
  if (!isDeepFrozen(block)) return convertContentBlock(block, path);
  let wire = persistedWireBlocks.get(block);
  if (wire === undefined) {
    wire = deepFreeze(convertContentBlock(block, path));
    persistedWireBlocks.set(block, wire);
  }
  return wire;
}

/**
 * One canonical content block as a Messages API block, or `null` for an unsigned thinking
 * block (the API requires a signature; such blocks come from other providers and are dropped).
 * Signed thinking and redacted thinking are copied field for field and never edited.
 */
export function convertContentBlock(block: UserContentBlock | AssistantContentBlock, path: string): ContentBlockParam | null {
  switch (block.type) {
    case 'text':
      return textBlock(block.text);
    case 'image':
      return convertImage(block, path);
    case 'document':
      return convertDocument(block, path);
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: canonicalObject(block.input) };
    case 'tool_result': {
      const wire: ToolResultBlockParam = { type: 'tool_result', tool_use_id: block.toolUseId };
      if (block.content.length > 0 || block.toolReferences?.length) {
        wire.content = block.content.map((inner, index) =>
          inner.type === 'text' ? textBlock(inner.text) : convertImage(inner, `${path}.content[${index}]`),
        );
        // Deferred tools loaded by this result: the definition joins the context here, in history,
        // so the tools zone (and the cached prefix) stays as it was.
        for (const name of block.toolReferences ?? []) wire.content.push({ type: 'tool_reference', tool_name: name });
      }
      if (block.isError === true) wire.is_error = true;
      return wire;
    }
    case 'thinking':
      if (block.signature === undefined) return null;
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    default:
      return assertNever(block);
  }
}

function convertImage(block: ImageBlock, path: string): ImageBlockParam {
  const source = block.source;
  if (source.kind === 'url') return { type: 'image', source: { type: 'url', url: source.url } };
  if (!isImageMediaType(source.mediaType)) {
    throw new ValidationError(`${path}.source.mediaType`, `one of ${IMAGE_MEDIA_TYPES.join(', ')}`, `got ${source.mediaType}`);
  }
  return { type: 'image', source: { type: 'base64', media_type: source.mediaType, data: source.data } };
}

function convertDocument(block: DocumentBlock, path: string): DocumentBlockParam {
  const source = block.source;
  let wire: DocumentBlockParam;
  switch (source.kind) {
    case 'text':
      wire = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: source.data } };
      break;
    case 'url':
      wire = { type: 'document', source: { type: 'url', url: source.url } };
      break;
    case 'base64':
      if (source.mediaType !== 'application/pdf') {
        throw new ValidationError(`${path}.source.mediaType`, 'application/pdf for base64 documents', `got ${source.mediaType}`);
      }
      wire = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: source.data } };
      break;
    default:
      return assertNever(source);
  }
  if (block.title !== undefined) wire.title = block.title;
  return wire;
}

function isImageMediaType(value: string): value is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(value);
}

/** The request's tool choice and parallel-call setting as Anthropic's `tool_choice`. */
export function convertToolChoice(params: GenerationParams): ToolChoice | undefined {
  const choice = params.toolChoice;
  const disableParallel = params.parallelToolCalls === false;
  if (!choice) return disableParallel ? { type: 'auto', disable_parallel_tool_use: true } : undefined;
  switch (choice.type) {
    case 'none':
      return { type: 'none' };
    case 'auto':
      return disableParallel ? { type: 'auto', disable_parallel_tool_use: true } : { type: 'auto' };
    case 'any':
      return disableParallel ? { type: 'any', disable_parallel_tool_use: true } : { type: 'any' };
    case 'tool':
      return disableParallel
        ? { type: 'tool', name: choice.name, disable_parallel_tool_use: true }
        : { type: 'tool', name: choice.name };
    default:
      return assertNever(choice);
  }
}
