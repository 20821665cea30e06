import { z } from 'zod';
import type { JsonObject, JsonValue } from './json.js';
import { copyJsonValue, findJsonProblem } from './json-value-check.js';

/**
 * zod schemas for everything that comes into Cachet from callers or files. Outgoing shapes
 * are plain interfaces (content.ts, request.ts); these describe the same shapes for parsing.
 */

/**
 * JSON data from callers, checked without unbounded recursion (depth, size, cycles, BigInt:
 * see `findJsonProblem`) and copied so that a `"__proto__"` key stays data.
 */
function jsonData(shape: 'value' | 'object') {
  return z
    .unknown()
    .superRefine((value, context) => {
      if (shape === 'object' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
        context.addIssue({ code: 'custom', message: `expected a JSON object, received ${describeKind(value)}` });
        return;
      }
      const problem = findJsonProblem(value);
      if (problem) context.addIssue({ code: 'custom', path: problem.path, message: `expected ${problem.message}` });
    })
    .transform((value) => copyJsonValue(value as JsonValue));
}

function describeKind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

export const jsonValueSchema: z.ZodType<JsonValue, unknown> = jsonData('value');
export const jsonObjectSchema: z.ZodType<JsonObject, unknown> = jsonData('object') as z.ZodType<JsonObject, unknown>;

const mediaSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('base64'), mediaType: z.string().min(1), data: z.string().min(1) }).strict(),
  z.object({ kind: z.literal('url'), url: z.string().url() }).strict(),
]);

export const textBlockSchema = z.object({ type: z.literal('text'), text: z.string() }).strict();
export const imageBlockSchema = z.object({ type: z.literal('image'), source: mediaSourceSchema }).strict();
export const documentBlockSchema = z
  .object({
    type: z.literal('document'),
    source: z.union([
      mediaSourceSchema,
      z.object({ kind: z.literal('text'), mediaType: z.literal('text/plain'), data: z.string() }).strict(),
    ]),
    title: z.string().optional(),
  })
  .strict();
export const toolUseBlockSchema = z
  .object({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: jsonObjectSchema })
  .strict();
export const toolResultBlockSchema = z
  .object({
    type: z.literal('tool_result'),
    toolUseId: z.string().min(1),
    content: z.array(z.union([textBlockSchema, imageBlockSchema])),
    isError: z.boolean().optional(),
    toolReferences: z.array(z.string().min(1)).optional(),
  })
  .strict();
export const thinkingBlockSchema = z
  .object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() })
  .strict();
export const redactedThinkingBlockSchema = z.object({ type: z.literal('redacted_thinking'), data: z.string().min(1) }).strict();

export const userContentBlockSchema = z.discriminatedUnion('type', [
  textBlockSchema,
  imageBlockSchema,
  documentBlockSchema,
  toolResultBlockSchema,
]);
export const assistantContentBlockSchema = z.discriminatedUnion('type', [
  textBlockSchema,
  toolUseBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
]);

export const userMessageSchema = z.object({ role: z.literal('user'), content: z.array(userContentBlockSchema).min(1) }).strict();
export const assistantMessageSchema = z
  .object({ role: z.literal('assistant'), content: z.array(assistantContentBlockSchema).min(1) })
  .strict();
export const messageSchema = z.discriminatedUnion('role', [userMessageSchema, assistantMessageSchema]);

export const toolDefinitionSchema = z
  .object({ name: z.string().min(1), description: z.string(), inputSchema: jsonObjectSchema })
  .strict();

export const systemSegmentInputSchema = z.object({ label: z.string().min(1), text: z.string().min(1) }).strict();

/**
 * Generation parameters as callers pass them. Known fields are checked; unknown fields pass
 * through as JSON data (adapters may read provider-specific extras; a BigInt or a cycle there
 * is refused here rather than failing later in serialisation).
 */
export const generationParamsSchema = z
  .object({
    maxTokens: z.number().int().positive(),
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().min(0).max(1).optional(),
    stopSequences: z.array(z.string().min(1)).optional(),
    toolChoice: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('auto') }).strict(),
        z.object({ type: z.literal('any') }).strict(),
        z.object({ type: z.literal('none') }).strict(),
        z.object({ type: z.literal('tool'), name: z.string().min(1) }).strict(),
      ])
      .optional(),
    thinking: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('disabled') }).strict(),
        z.object({ type: z.literal('enabled'), budgetTokens: z.number().int().positive() }).strict(),
        z.object({ type: z.literal('adaptive') }).strict(),
      ])
      .optional(),
    effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
    parallelToolCalls: z.boolean().optional(),
  })
  // Unknown fields reach adapters (and canonical JSON): they must be JSON data too.
  .catchall(jsonValueSchema.optional());
