import type { JsonObject, JsonValue } from './json.js';

/** Where an image or document's bytes come from. */
export type MediaSource = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ImageBlock {
  type: 'image';
  source: MediaSource;
}

export interface DocumentBlock {
  type: 'document';
  source: MediaSource | { kind: 'text'; mediaType: 'text/plain'; data: string };
  title?: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  /** Provider-issued id; the matching tool_result carries it as `toolUseId`. */
  id: string;
  name: string;
  input: JsonObject;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: Array<TextBlock | ImageBlock>;
  isError?: boolean;
  /**
   * Names of deferred tools (`SessionOptions.deferredTools`) this result makes available, as
   * a client-side tool search returns them. Anthropic receives them as `tool_reference` blocks
   * inside the result, so the tools zone never changes; other providers append the definitions.
   */
  toolReferences?: string[];
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  /** Opaque provider signature; a signed block must be sent back byte-for-byte. */
  signature?: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type UserContentBlock = TextBlock | ImageBlock | DocumentBlock | ToolResultBlock;
export type AssistantContentBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock;
export type ContentBlock = UserContentBlock | AssistantContentBlock;

export interface UserMessage {
  role: 'user';
  content: UserContentBlock[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContentBlock[];
}

export type Message = UserMessage | AssistantMessage;

/** JSON Schema for a tool's input, kept as plain JSON. */
export type JsonSchema = JsonObject;

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export type { JsonValue };
