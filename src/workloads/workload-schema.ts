import { z } from 'zod';
import { jsonObjectSchema } from '../model/schemas.js';
import { PROVIDER_IDS, type ProviderId } from '../providers/registry.js';
import { parseDuration } from './duration.js';

/**
 * zod schema of a workload file (YAML or JSON), as written by people. `load-workload.ts`
 * validates with it and `expand-workload.ts` turns the result into the resolved `Workload`.
 * Documented field by field in docs/workloads.md.
 */

/** The registry's provider ids: a workload names one as its `provider`. */
export const PROVIDER_NAMES: readonly [ProviderId, ...ProviderId[]] = PROVIDER_IDS;

const durationSchema = z.union([z.string(), z.number()]).refine((value) => parseDuration(value) !== null, {
  message: 'expected a duration such as 90s, 5m, 1h30m or a number of seconds',
});

const nonEmpty = z.string().min(1);

export const toolSchema = z
  .object({
    name: nonEmpty,
    description: z.string(),
    inputSchema: jsonObjectSchema,
    /** Usage guidance shown once, as a `[TOOL GUIDANCE]` pair, when the tool is discovered mid-session. */
    guidance: z.string().optional(),
    /** Declared as a deferred tool (Anthropic `defer_loading`): outside the cached prefix until found. */
    deferLoading: z.boolean().optional(),
  })
  .strict();

export const FILLER_KINDS = ['code', 'json', 'log', 'prose', 'diff', 'html', 'csv'] as const;

/** A tool result: literal text, or a size to fill with deterministic, realistic content. */
export const resultSchema = z.union([
  z.string(),
  z
    .object({
      text: z.string().optional(),
      /** Approximate size in tokens of generated content (seeded by the workload name and the call's position). */
      tokens: z.number().int().positive().max(200_000).optional(),
      kind: z.enum(FILLER_KINDS).optional(),
      /** A short first line for generated content, e.g. the file path. */
      header: z.string().optional(),
      isError: z.boolean().optional(),
    })
    .strict()
    .refine((value) => (value.text === undefined) !== (value.tokens === undefined), {
      message: 'expected exactly one of `text` or `tokens`',
    }),
]);

export const documentSchema = z
  .object({
    title: nonEmpty,
    text: z.string().optional(),
    tokens: z.number().int().positive().max(200_000).optional(),
    kind: z.enum(FILLER_KINDS).optional(),
  })
  .strict()
  .refine((value) => (value.text === undefined) !== (value.tokens === undefined), {
    message: 'expected exactly one of `text` or `tokens`',
  });

export const toolCallSchema = z.union([
  z
    .object({
      name: nonEmpty,
      input: jsonObjectSchema.default({}),
      result: resultSchema,
    })
    .strict(),
  z
    .object({
      /** Shorthand for a `skill_load` call whose result is the skill's body. */
      skillLoad: nonEmpty,
    })
    .strict(),
]);

export const imageSchema = z
  .object({
    name: nonEmpty,
    width: z.number().int().min(1).max(8000),
    height: z.number().int().min(1).max(8000),
  })
  .strict();

export const tailSchema = z
  .object({
    memoryRecall: z.string().optional(),
    /** Render the current time (on the workload's clock) into the tail. */
    time: z.boolean().optional(),
    workingContext: z.string().optional(),
    /** Skills matched for this turn, by name: their bodies ride in the tail for this turn only. */
    skills: z.array(nonEmpty).optional(),
  })
  .strict();

/** An OpenAI Responses reasoning item: its summary and the size of its `encrypted_content`. */
export const reasoningSchema = z
  .object({
    summary: z.string(),
    /** Approximate size of the opaque `encrypted_content` in tokens (generated, seeded). Default 200. */
    encryptedTokens: z.number().int().positive().max(200_000).optional(),
  })
  .strict();

/** Request parameters for one turn's requests (the session's defaults otherwise). */
export const turnParamsSchema = z
  .object({
    toolChoice: z.union([z.enum(['auto', 'any', 'none']), z.object({ tool: nonEmpty }).strict()]).optional(),
    thinking: z
      .union([z.enum(['disabled', 'adaptive']), z.object({ budgetTokens: z.number().int().min(1024) }).strict()])
      .optional(),
    effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
    parallelToolCalls: z.boolean().optional(),
    /** OpenAI `prompt_cache_retention`. */
    retention: z.enum(['in_memory', '24h']).optional(),
  })
  .strict();

export const stepSchema = z
  .object({
    thinking: z.string().optional(),
    /** An OpenAI reasoning item the model returned (sent back as a signed thinking block). */
    reasoning: reasoningSchema.optional(),
    text: z.string().optional(),
    toolCalls: z.array(toolCallSchema).optional(),
    /** Tools (by name, from `toolLibrary`) that become available after this step. */
    discoverTools: z.array(nonEmpty).optional(),
    /** Model time plus tool time before the next request of this turn. Default 6s. */
    latency: durationSchema.optional(),
  })
  .strict();

/**
 * A subagent call of the parent (a step kind): a side request that forks the parent's previous
 * request — its exact prefix, with `task` after it — and whose reply never enters the parent's
 * history (the parent's tool results carry what the subagent found). A fan-out is several of them.
 */
export const subagentStepSchema = z
  .object({
    subagent: z
      .object({
        /** The instruction the subagent gets after the parent's prefix. */
        task: nonEmpty,
        /** Time before the next request of the turn (subagents of one fan-out run side by side). Default 1s. */
        latency: durationSchema.optional(),
      })
      .strict(),
  })
  .strict();

export const turnSchema = z
  .object({
    /** Absolute time (ISO 8601) or offset from `start` (`+12m`). */
    at: z.string().optional(),
    /** Gap after the previous turn's last request. Default 45s. */
    after: durationSchema.optional(),
    /** Switch the model from this turn on (on the workload's own provider). */
    model: nonEmpty.optional(),
    /** Request parameters for this turn's requests. */
    params: turnParamsSchema.optional(),
    /** Tools (by name, from `toolLibrary`) that connect at the start of this turn without a tool call: an MCP server coming up. */
    connectTools: z.array(nonEmpty).optional(),
    /** Empty text is valid: the turn's message then carries only its images (or says `(empty message)`). */
    user: z.string(),
    images: z.array(imageSchema).optional(),
    tail: tailSchema.optional(),
    steps: z.array(z.union([stepSchema, subagentStepSchema])).min(1),
  })
  .strict();

export const repeatSchema = z
  .object({
    repeat: z
      .object({
        count: z.number().int().min(1).max(10_000),
        /** Gaps before each generated turn, cycled. */
        gaps: z.array(durationSchema).min(1).optional(),
        /** Turn templates, cycled; `{n}` in any string becomes the 1-based iteration number. */
        turns: z.array(turnSchema).min(1),
      })
      .strict(),
  })
  .strict();

export const idleSchema = z.object({ idle: durationSchema }).strict();

export const turnEntrySchema = z.union([turnSchema, repeatSchema, idleSchema]);

export const skillSchema = z
  .object({
    name: nonEmpty,
    description: z.string(),
    body: z.string().min(1),
  })
  .strict();

export const workloadFileSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, { message: 'expected a lowercase slug such as coding-agent' }),
    title: z.string().optional(),
    description: z.string(),
    provider: z.enum(PROVIDER_NAMES),
    model: nonEmpty,
    /** Wall-clock time of the first turn (ISO 8601). */
    start: z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: 'expected an ISO 8601 date-time' }),
    maxTokens: z.number().int().positive().optional(),
    global: z
      .object({
        persona: z.string().min(1),
        guidelines: z.string().optional(),
        tools: z.array(toolSchema).default([]),
      })
      .strict(),
    session: z
      .object({
        /** Project instructions fixed at session start (session static zone). */
        instructions: z.string().optional(),
        /** Working memory restored at session start. */
        workingMemory: z.string().optional(),
        /** Documents attached at session start (a spec, a style guide): literal text or a generated size. */
        documents: z.array(documentSchema).optional(),
      })
      .strict()
      .optional(),
    skills: z.array(skillSchema).optional(),
    /** Tools that are not declared at start and can be discovered mid-session. */
    toolLibrary: z.array(toolSchema).optional(),
    /** Tail items added to every turn (a turn's own `tail` overrides field by field). */
    everyTurn: tailSchema.optional(),
    turns: z.array(turnEntrySchema).min(1),
  })
  .strict();

export type WorkloadFile = z.infer<typeof workloadFileSchema>;
export type TurnInput = z.infer<typeof turnSchema>;
export type StepInput = z.infer<typeof stepSchema>;
export type SubagentStepInput = z.infer<typeof subagentStepSchema>;
export type ToolCallInput = z.infer<typeof toolCallSchema>;
export type ResultInput = z.infer<typeof resultSchema>;
export type TailInput = z.infer<typeof tailSchema>;
export type TurnParamsInput = z.infer<typeof turnParamsSchema>;
export type ToolInput = z.infer<typeof toolSchema>;
