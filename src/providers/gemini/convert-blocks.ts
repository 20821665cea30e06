import type { FunctionDeclaration, Part } from '@google/genai';
import { canonicalize } from '../../model/canonical-json.js';
import type { AssistantContentBlock, ImageBlock, ToolDefinition, UserContentBlock } from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import type { JsonObject } from '../../model/json.js';
import { assertNever } from '../../model/validate.js';

/**
 * A tool definition as a Gemini function declaration. The schema travels as
 * `parametersJsonSchema` (plain JSON Schema) through canonical JSON, so key order from MCP
 * servers never changes the cached prefix.
 */
export function convertToolToGemini(tool: ToolDefinition): FunctionDeclaration {
  const declaration: FunctionDeclaration = { name: tool.name, parametersJsonSchema: canonicalize(tool.inputSchema) };
  if (tool.description.length > 0) declaration.description = tool.description;
  return declaration;
}

/** What converting one message needs to know beyond the block: tool names by call id, the pending signature. */
export interface PartContext {
  toolNames: Map<string, string>;
  /** A thought signature waiting for the next part (Gemini carries it on the part after the thought). */
  signature: string | undefined;
}

/**
 * One canonical block as a Gemini part, or `null` when it has no part of its own: thinking
 * blocks are not sent back (Gemini needs only their signature, which rides on the next part).
 */
export function convertBlockToGemini(
  block: UserContentBlock | AssistantContentBlock,
  path: string,
  context: PartContext,
): Part | null {
  switch (block.type) {
    case 'text':
      return withSignature({ text: block.text }, context);
    case 'image':
      return convertImage(block, path);
    case 'document': {
      const source = block.source;
      if (source.kind === 'text') return { text: source.data };
      if (source.kind === 'url') return { fileData: { fileUri: source.url, mimeType: 'application/pdf' } };
      return { inlineData: { mimeType: source.mediaType, data: source.data } };
    }
    case 'tool_use':
      context.toolNames.set(block.id, block.name);
      return withSignature(
        { functionCall: { id: block.id, name: block.name, args: canonicalize(block.input) as JsonObject } },
        context,
      );
    case 'tool_result': {
      const name = context.toolNames.get(block.toolUseId);
      if (name === undefined) {
        throw new ValidationError(`${path}.toolUseId`, 'the id of a tool_use earlier in the request', `got ${block.toolUseId}`);
      }
      const text = block.content.flatMap((inner) => (inner.type === 'text' ? [inner.text] : [])).join('\n');
      const response = block.isError === true ? { error: text } : { output: text };
      return { functionResponse: { id: block.toolUseId, name, response } };
    }
    case 'thinking':
      context.signature = block.signature;
      return null;
    case 'redacted_thinking':
      return null;
    default:
      return assertNever(block);
  }
}

function withSignature(part: Part, context: PartContext): Part {
  if (context.signature === undefined) return part;
  const signed = { ...part, thoughtSignature: context.signature };
  context.signature = undefined;
  return signed;
}

function convertImage(block: ImageBlock, path: string): Part {
  const source = block.source;
  if (source.kind === 'url') {
    const extension = source.url.split('.').at(-1)?.toLowerCase();
    const mimeType =
      extension === 'png'
        ? 'image/png'
        : extension === 'webp'
          ? 'image/webp'
          : extension === 'jpg' || extension === 'jpeg'
            ? 'image/jpeg'
            : null;
    if (!mimeType)
      throw new ValidationError(`${path}.source.url`, 'an image URL ending in .png, .jpg, .jpeg or .webp', `got ${source.url}`);
    return { fileData: { fileUri: source.url, mimeType } };
  }
  return { inlineData: { mimeType: source.mediaType, data: source.data } };
}
