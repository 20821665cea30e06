import { createHash } from 'node:crypto';
import type { ImageBlock, TextBlock, ToolDefinition, ToolResultBlock } from '../model/content.js';
import { ValidationError } from '../model/errors.js';
import type { JsonObject } from '../model/json.js';
import { validateTools } from '../model/validate.js';
import { syntheticPng } from './synthetic-png.js';
import { WorkloadContentError } from './workload-content-error.js';
import type { ToolInput } from './workload-schema.js';

/* The content blocks a workload expands into: tool definitions, results, ids and images, all deterministic. */

export function toToolDefinition(tool: ToolInput): ToolDefinition {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema as JsonObject };
}

export function checkedTools(tools: ToolDefinition[], path: string): ToolDefinition[] {
  try {
    return validateTools(tools, path);
  } catch (error) {
    if (error instanceof ValidationError) throw new WorkloadContentError(error.path, error.message.slice(error.path.length + 2));
    throw error;
  }
}

/** An empty tool output is a result without content blocks: every provider accepts that, none an empty text block. */
export function textResult(toolUseId: string, text: string): ToolResultBlock {
  return { type: 'tool_result', toolUseId, content: text.length > 0 ? [{ type: 'text', text } satisfies TextBlock] : [] };
}

/** Deterministic ids shaped like Anthropic's, so bodies are byte-stable across runs. */
export function toolUseId(context: { workload: string; turn: number }, step: number, call: number): string {
  return `toolu_${digest(`${context.workload}/${context.turn}/${step}/${call}`).slice(0, 24)}`;
}

export function signatureFor(context: { workload: string; turn: number }, step: number): string {
  return Buffer.from(digest(`signature/${context.workload}/${context.turn}/${step}`), 'hex').toString('base64');
}

export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function toImage(image: { name: string; width: number; height: number }, seed: string): ImageBlock {
  return {
    type: 'image',
    source: { kind: 'base64', mediaType: 'image/png', data: syntheticPng(image.width, image.height, seed).toString('base64') },
  };
}
