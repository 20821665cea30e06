import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import type { Message, ToolDefinition } from './content.js';
import { ValidationError } from './errors.js';
import type { JsonObject } from './json.js';
import { DEFAULT_SIZE_LIMITS, type SizeLimits } from './limits.js';
import { messageSchema, systemSegmentInputSchema, toolDefinitionSchema } from './schemas.js';

/** `messages[3].content[0].text` from a base path and a zod issue path. */
export function joinPath(base: string, segments: ReadonlyArray<PropertyKey>): string {
  let path = base;
  for (const segment of segments) {
    path += typeof segment === 'number' ? `[${segment}]` : `${path ? '.' : ''}${String(segment)}`;
  }
  return path;
}

/** Parse with zod and turn the first issue into a ValidationError naming the full path. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, basePath: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new ValidationError(basePath, 'a valid value');
  // A custom issue's message already says what was expected; repeating it as detail adds nothing.
  const detail = issue.code === 'custom' ? undefined : issue.message;
  throw new ValidationError(joinPath(basePath, issue.path), describeIssue(issue), detail);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `a value of type ${issue.expected}`;
    case 'invalid_value':
      return `one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_union':
      return 'one of the allowed shapes';
    case 'unrecognized_keys':
      return `no unknown keys (found ${issue.keys.join(', ')})`;
    case 'too_small':
      return `at least ${String(issue.minimum)} ${issue.origin === 'string' ? 'characters' : 'items'}`;
    case 'too_big':
      return `at most ${String(issue.maximum)}`;
    case 'custom':
      return issue.message.replace(/^expected /, '');
    default:
      return 'a valid value';
  }
}

const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

/**
 * The JSON Schema dialects a tool's `$schema` may name (zod 4 and LangChain's zod tools write
 * draft 2020-12); no `$schema` is read as draft-07, as providers do.
 */
const SCHEMA_DIALECTS = {
  'https://json-schema.org/draft/2020-12/schema': () => new Ajv2020({ strict: false, validateSchema: true }),
  'https://json-schema.org/draft/2019-09/schema': () => new Ajv2019({ strict: false, validateSchema: true }),
  'http://json-schema.org/draft-07/schema': () => new Ajv({ strict: false, validateSchema: true }),
} as const;
type SchemaDialect = keyof typeof SCHEMA_DIALECTS;

const schemaValidators = new Map<SchemaDialect, Ajv>();
function jsonSchemaValidator(declared: unknown, path: string): Ajv {
  const dialect = (
    declared === undefined ? 'http://json-schema.org/draft-07/schema' : String(declared).replace(/#$/, '')
  ) as SchemaDialect;
  if (!Object.hasOwn(SCHEMA_DIALECTS, dialect)) {
    throw new ValidationError(
      `${path}.inputSchema.$schema`,
      `one of ${Object.keys(SCHEMA_DIALECTS).join(', ')} (or none)`,
      `got ${JSON.stringify(declared)}`,
    );
  }
  let validator = schemaValidators.get(dialect);
  if (!validator) {
    validator = SCHEMA_DIALECTS[dialect]();
    schemaValidators.set(dialect, validator);
  }
  return validator;
}

/** Validate tool definitions: shape, names, uniqueness, JSON Schema validity, limits. */
export function validateTools(
  tools: unknown,
  basePath = 'tools',
  limits: SizeLimits = DEFAULT_SIZE_LIMITS,
  alreadyDeclared: ReadonlySet<string> = new Set(),
): ToolDefinition[] {
  if (!Array.isArray(tools)) throw new ValidationError(basePath, 'an array of tool definitions');
  if (tools.length + alreadyDeclared.size > limits.maxTools) {
    throw new ValidationError(basePath, `at most ${limits.maxTools} tools`, `got ${tools.length + alreadyDeclared.size}`);
  }
  const seen = new Set(alreadyDeclared);
  return tools.map((tool, index) => {
    const path = `${basePath}[${index}]`;
    const parsed = parseWith(toolDefinitionSchema, tool, path) as ToolDefinition;
    if (parsed.name.length > limits.maxToolNameLength || !TOOL_NAME_PATTERN.test(parsed.name)) {
      throw new ValidationError(
        `${path}.name`,
        `a tool name of letters, digits, '_' or '-' up to ${limits.maxToolNameLength} characters`,
        `got ${JSON.stringify(parsed.name)}`,
      );
    }
    if (seen.has(parsed.name)) {
      throw new ValidationError(`${path}.name`, 'a unique tool name', `${JSON.stringify(parsed.name)} is declared twice`);
    }
    seen.add(parsed.name);
    if (parsed.inputSchema.type !== 'object') {
      throw new ValidationError(`${path}.inputSchema.type`, '"object" (providers require an object schema for tool input)');
    }
    const validator = jsonSchemaValidator(parsed.inputSchema.$schema, path);
    if (!validator.validateSchema(parsed.inputSchema)) {
      const first = validator.errors?.[0];
      throw new ValidationError(
        `${path}.inputSchema${first?.instancePath ? first.instancePath.replaceAll('/', '.') : ''}`,
        'a valid JSON Schema',
        first?.message,
      );
    }
    return parsed;
  });
}

/** Structural and size validation of one message, without its neighbours. */
export function validateMessage(message: unknown, path: string, limits: SizeLimits = DEFAULT_SIZE_LIMITS): Message {
  const parsed = parseWith(messageSchema, message, path) as Message;
  if (parsed.content.length > limits.maxContentBlocksPerMessage) {
    throw new ValidationError(`${path}.content`, `at most ${limits.maxContentBlocksPerMessage} blocks`);
  }
  parsed.content.forEach((block, index) => {
    const blockPath = `${path}.content[${index}]`;
    switch (block.type) {
      case 'text':
        checkText(block.text, `${blockPath}.text`, limits);
        break;
      case 'tool_result':
        block.content.forEach((inner, innerIndex) => {
          if (inner.type === 'text') checkText(inner.text, `${blockPath}.content[${innerIndex}].text`, limits);
          else checkMedia(inner.source, `${blockPath}.content[${innerIndex}].source`, limits);
        });
        break;
      case 'image':
        checkMedia(block.source, `${blockPath}.source`, limits);
        break;
      case 'document':
        if (block.source.kind === 'text') checkText(block.source.data, `${blockPath}.source.data`, limits);
        else checkMedia(block.source, `${blockPath}.source`, limits);
        break;
      case 'thinking':
        if (block.thinking.length > limits.maxBlockChars) {
          throw new ValidationError(`${blockPath}.thinking`, `at most ${limits.maxBlockChars} characters`);
        }
        break;
      case 'tool_use':
        checkToolInputSize(block.input, `${blockPath}.input`, limits);
        break;
      case 'redacted_thinking':
        break;
      default:
        assertNever(block);
    }
  });
  return parsed;
}

function checkText(text: string, path: string, limits: SizeLimits): void {
  if (text.length === 0) throw new ValidationError(path, 'non-empty text', 'providers reject empty text blocks');
  if (text.length > limits.maxBlockChars) {
    throw new ValidationError(path, `at most ${limits.maxBlockChars} characters`, `got ${text.length}`);
  }
}

function checkToolInputSize(input: JsonObject, path: string, limits: SizeLimits): void {
  const size = canonicalJson(input).length;
  if (size > limits.maxBlockChars) {
    throw new ValidationError(path, `at most ${limits.maxBlockChars} characters of JSON`, `got ${size}`);
  }
}

/**
 * One system segment (`{ label, text }`) with the same text limit as a message block: a
 * 50 MB persona is refused where it enters, not when the first request is built.
 */
export function validateSystemSegment(
  segment: unknown,
  path: string,
  limits: SizeLimits = DEFAULT_SIZE_LIMITS,
): { label: string; text: string } {
  const parsed = parseWith(systemSegmentInputSchema, segment, path) as { label: string; text: string };
  checkText(parsed.text, `${path}.text`, limits);
  return parsed;
}

function checkMedia(source: { kind: string; data?: string }, path: string, limits: SizeLimits): void {
  if (source.kind === 'base64' && source.data !== undefined && source.data.length > limits.maxMediaChars) {
    throw new ValidationError(`${path}.data`, `at most ${limits.maxMediaChars} base64 characters`);
  }
}

/**
 * Tool pairing across a sequence of messages: every tool_use of an assistant message is
 * answered by exactly one tool_result in the user message that follows it, and no tool_result
 * answers anything else. `allowPendingAtEnd` accepts a final assistant message whose calls
 * have not been answered yet (the state between a model reply and the tool results).
 */
export function validatePairing(
  messages: readonly Message[],
  basePath = 'messages',
  options: { allowPendingAtEnd: boolean; offset?: number } = { allowPendingAtEnd: true },
): void {
  const offset = options.offset ?? 0;
  let pending: Map<string, number> | null = null;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    const path = `${basePath}[${index + offset}]`;
    if (message.role === 'assistant') {
      if (pending && pending.size > 0) {
        throw new ValidationError(
          path,
          'a user message with tool results first',
          `tool_use ${[...pending.keys()].join(', ')} unanswered`,
        );
      }
      pending = new Map();
      const seenIds = new Set<string>();
      message.content.forEach((block, blockIndex) => {
        if (block.type !== 'tool_use') return;
        if (seenIds.has(block.id)) {
          throw new ValidationError(`${path}.content[${blockIndex}].id`, 'a unique tool_use id', `${block.id} repeats`);
        }
        seenIds.add(block.id);
        pending?.set(block.id, blockIndex);
      });
      continue;
    }
    const answered = new Set<string>();
    message.content.forEach((block, blockIndex) => {
      if (block.type !== 'tool_result') return;
      const blockPath = `${path}.content[${blockIndex}].toolUseId`;
      if (!pending?.has(block.toolUseId)) {
        throw new ValidationError(
          blockPath,
          'the id of a tool_use in the preceding assistant message',
          `orphan tool_result for ${block.toolUseId}`,
        );
      }
      if (answered.has(block.toolUseId)) {
        throw new ValidationError(blockPath, 'exactly one tool_result per tool_use', `${block.toolUseId} answered twice`);
      }
      answered.add(block.toolUseId);
    });
    if (pending && pending.size > 0) {
      const missing = [...pending.keys()].filter((id) => !answered.has(id));
      if (missing.length > 0) {
        throw new ValidationError(
          `${path}.content`,
          `a tool_result for every tool_use of the preceding assistant message`,
          `missing ${missing.join(', ')}`,
        );
      }
    }
    pending = null;
  }
  if (!options.allowPendingAtEnd && pending && pending.size > 0) {
    throw new ValidationError(
      `${basePath}[${messages.length - 1 + offset}]`,
      'tool results for every tool_use before a request is assembled',
      `unanswered ${[...pending.keys()].join(', ')}`,
    );
  }
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}
