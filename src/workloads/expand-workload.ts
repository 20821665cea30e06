import type { AssistantContentBlock, ThinkingBlock, ToolDefinition, ToolResultBlock, ToolUseBlock } from '../model/content.js';
import type { JsonObject, JsonValue } from '../model/json.js';
import { thinkingFromReasoningItem } from '../providers/openai-responses/reasoning-items.js';
import { parseDuration } from './duration.js';
import { type FillerKind, generateFiller } from './filler.js';
import { SUBAGENT_LATENCY_MS, subagentStep } from './subagent-step.js';
import type {
  DiscoverableTool,
  Workload,
  WorkloadStep,
  WorkloadTail,
  WorkloadTurn,
  WorkloadTurnParams,
  WorkloadWarning,
} from './workload.js';
import { checkedTools, digest, signatureFor, textResult, toImage, toolUseId, toToolDefinition } from './workload-blocks.js';
import { WorkloadContentError } from './workload-content-error.js';
import {
  FILLER_KINDS,
  type StepInput,
  type SubagentStepInput,
  type TailInput,
  type TurnInput,
  type WorkloadFile,
} from './workload-schema.js';

export { WorkloadContentError } from './workload-content-error.js';

export const SKILL_LOAD_TOOL: ToolDefinition = {
  name: 'skill_load',
  description:
    'Load the full instructions of a skill listed in the skill index. Call it once per skill, before doing work the skill covers; the body arrives as the tool result.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string', description: 'The skill name exactly as listed in the index.' } },
    required: ['name'],
    additionalProperties: false,
  },
};

const DEFAULT_GAP_MS = 45_000;
const DEFAULT_LATENCY_MS = 6_000;

/**
 * Resolve a validated workload file: expand `repeat` blocks, resolve every time on the
 * workload's clock, fill sized tool results, create image bytes, check every reference
 * (tools, skills, discovered tools) and the shape of each turn.
 */
export function expandWorkload(file: WorkloadFile, source: string | null = null): Workload {
  const startMs = Date.parse(file.start);
  const tools = checkedTools(file.global.tools.map(toToolDefinition), 'global.tools');
  const skills = file.skills ?? [];
  const skillNames = new Set(skills.map((skill) => skill.name));
  if (skillNames.size !== skills.length) throw new WorkloadContentError('skills', 'skill names must be unique');
  const library = new Map<string, DiscoverableTool>();
  (file.toolLibrary ?? []).forEach((tool, index) => {
    checkedTools([toToolDefinition(tool)], `toolLibrary[${index}]`);
    if (library.has(tool.name) || tools.some((known) => known.name === tool.name)) {
      throw new WorkloadContentError(`toolLibrary[${index}].name`, `tool "${tool.name}" is declared twice`);
    }
    library.set(tool.name, {
      tool: toToolDefinition(tool),
      guidance: tool.guidance ?? null,
      deferLoading: tool.deferLoading ?? false,
    });
  });

  const templates = flattenTurns(file);
  const usesSkillLoad = templates.some(({ turn }) =>
    turn.steps.some((step) => 'toolCalls' in step && step.toolCalls?.some((call) => 'skillLoad' in call)),
  );
  if (usesSkillLoad && !tools.some((tool) => tool.name === SKILL_LOAD_TOOL.name)) tools.push(SKILL_LOAD_TOOL);

  const available = new Set(tools.map((tool) => tool.name));
  const turns: WorkloadTurn[] = [];
  const warnings: WorkloadWarning[] = [];
  const warn = (path: string, message: string) =>
    warnings.push({ code: 'after-ignored', message, path, text: `${path}: ${message}`, line: null });
  let previousEnd: number | null = null;
  templates.forEach(({ turn: input, path, gapMs, after }, index) => {
    const turnNumber = index + 1;
    if (after !== undefined && input.at !== undefined) {
      warn(`${path}.after`, '`after` is ignored on a turn that sets `at` (the turn starts at `at`)');
    } else if (after !== undefined && previousEnd === null) {
      warn(
        `${path}.after`,
        '`after` is ignored on the first turn (it starts at `start`; use an `idle` entry or `at: +offset` to delay it)',
      );
    }
    let at: number;
    if (input.at !== undefined) {
      at = resolveAt(input.at, startMs, `${path}.at`);
      if (previousEnd !== null && at < previousEnd) {
        throw new WorkloadContentError(`${path}.at`, "turn times must not go back before the previous turn's last request");
      }
    } else if (previousEnd === null) {
      at = startMs + gapMs;
    } else {
      at = previousEnd + (input.after !== undefined ? (parseDuration(input.after) as number) : DEFAULT_GAP_MS) + gapMs;
    }
    const context: TurnContext = { workload: file.name, turn: turnNumber, path, available, library, skills: skillNames };
    const connectedTools = (input.connectTools ?? []).map((name, nameIndex) =>
      takeFromLibrary(name, `${path}.connectTools[${nameIndex}]`, context),
    );
    const params = turnParams(input, `${path}.params`, available);
    const steps = expandSteps(input.steps, at, context, file);
    previousEnd = steps.at(-1)?.at ?? at;
    turns.push({
      turn: turnNumber,
      at,
      user: input.user,
      images: (input.images ?? []).map((image) => toImage(image, `${file.name}/t${turnNumber}/${image.name}`)),
      tail: mergeTail(file.everyTurn, input.tail, skillNames, `${path}.tail`),
      steps,
      modelSwitch: input.model ?? null,
      params,
      connectedTools,
    });
  });

  return {
    name: file.name,
    title: file.title ?? file.name,
    description: file.description,
    file: source,
    provider: file.provider,
    model: file.model,
    maxTokens: file.maxTokens ?? 4096,
    persona: file.global.persona,
    guidelines: file.global.guidelines ?? null,
    tools,
    sessionInstructions: file.session?.instructions ?? null,
    workingMemory: file.session?.workingMemory ?? null,
    sessionDocuments: (file.session?.documents ?? []).map((document, index) => ({
      title: document.title,
      text:
        document.text ??
        generateFiller({
          kind: document.kind ?? 'prose',
          tokens: document.tokens as number,
          seed: `${file.name}/documents/${index}`,
        }),
    })),
    skills: skills.map((skill) => ({ ...skill })),
    toolLibrary: [...library.values()],
    turns,
    warnings,
  };
}

interface TurnTemplate {
  turn: TurnInput;
  /** The `after` the author wrote (repeat `gaps` set one the author did not). */
  after: TurnInput['after'];
  /** Path of the turn (or its template) in the file. */
  path: string;
  /** Idle time to add before this turn, from `idle` entries and repeat `gaps`. */
  gapMs: number;
}

interface TurnContext {
  workload: string;
  turn: number;
  path: string;
  available: Set<string>;
  library: Map<string, DiscoverableTool>;
  skills: Set<string>;
}

function flattenTurns(file: WorkloadFile): TurnTemplate[] {
  const result: TurnTemplate[] = [];
  let pendingIdle = 0;
  file.turns.forEach((entry, index) => {
    if ('idle' in entry) {
      pendingIdle += parseDuration(entry.idle) as number;
      return;
    }
    if ('repeat' in entry) {
      const { count, gaps, turns } = entry.repeat;
      for (let iteration = 0; iteration < count; iteration++) {
        const templateIndex = iteration % turns.length;
        const template = substitute(turns[templateIndex] as TurnInput, iteration + 1);
        const gap = gaps ? (parseDuration(gaps[iteration % gaps.length] as string | number) as number) : null;
        result.push({
          turn: gap === null || template.after !== undefined || template.at !== undefined ? template : { ...template, after: 0 },
          after: template.after,
          path: `turns[${index}].repeat.turns[${templateIndex}]`,
          gapMs: pendingIdle + (gap ?? 0),
        });
        pendingIdle = 0;
      }
      return;
    }
    result.push({ turn: entry, after: entry.after, path: `turns[${index}]`, gapMs: pendingIdle });
    pendingIdle = 0;
  });
  if (result.length === 0)
    throw new WorkloadContentError('turns', 'expected at least one turn (idle entries alone are not a session)');
  return result;
}

/** `{n}` in every string of a repeat template becomes the iteration number. */
function substitute<T>(value: T, iteration: number): T {
  if (typeof value === 'string') return value.replaceAll('{n}', String(iteration)) as T;
  if (Array.isArray(value)) return value.map((item) => substitute(item, iteration)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, iteration)])) as T;
  }
  return value;
}

function resolveAt(value: string, startMs: number, path: string): number {
  if (value.startsWith('+')) {
    const offset = parseDuration(value.slice(1));
    if (offset === null) throw new WorkloadContentError(path, `expected an offset such as +12m, got ${JSON.stringify(value)}`);
    return startMs + offset;
  }
  const absolute = Date.parse(value);
  if (Number.isNaN(absolute))
    throw new WorkloadContentError(path, `expected an ISO 8601 date-time or +offset, got ${JSON.stringify(value)}`);
  return absolute;
}

function expandSteps(
  inputs: Array<StepInput | SubagentStepInput>,
  turnAt: number,
  context: TurnContext,
  file: WorkloadFile,
): WorkloadStep[] {
  let at = turnAt;
  return inputs.map((input, index) => {
    const path = `${context.path}.steps[${index}]`;
    if ('subagent' in input) {
      const step = subagentStep(input, index, inputs.length, at, path);
      at += input.subagent.latency !== undefined ? (parseDuration(input.subagent.latency) as number) : SUBAGENT_LATENCY_MS;
      return step;
    }
    const calls = input.toolCalls ?? [];
    const isLast = index === inputs.length - 1;
    if (isLast && calls.length > 0) {
      throw new WorkloadContentError(
        `${path}.toolCalls`,
        'the last step of a turn must not call tools (add a step with the final answer)',
      );
    }
    if (!isLast && calls.length === 0) {
      throw new WorkloadContentError(path, 'only the last step of a turn may end without tool calls');
    }
    const reply: AssistantContentBlock[] = [];
    if (input.reasoning) reply.push(reasoningBlock(input.reasoning, context, index));
    if (input.thinking) reply.push({ type: 'thinking', thinking: input.thinking, signature: signatureFor(context, index) });
    if (input.text) reply.push({ type: 'text', text: input.text });
    if (reply.length === 0 && calls.length === 0)
      throw new WorkloadContentError(path, 'a step needs text, thinking, reasoning or tool calls');
    const toolResults: ToolResultBlock[] = [];
    const skillLoads: string[] = [];
    calls.forEach((call, callIndex) => {
      const callPath = `${path}.toolCalls[${callIndex}]`;
      const id = toolUseId(context, index, callIndex);
      const seed = `${context.workload}/t${context.turn}/s${index}/c${callIndex}`;
      if ('skillLoad' in call) {
        const skill = file.skills?.find((candidate) => candidate.name === call.skillLoad);
        if (!skill) throw new WorkloadContentError(`${callPath}.skillLoad`, `no skill named "${call.skillLoad}" in skills`);
        reply.push({ type: 'tool_use', id, name: SKILL_LOAD_TOOL.name, input: { name: skill.name } });
        toolResults.push(textResult(id, `# Skill: ${skill.name}\n\n${skill.body}`));
        skillLoads.push(skill.name);
        return;
      }
      if (!context.available.has(call.name)) {
        throw new WorkloadContentError(
          `${callPath}.name`,
          `tool "${call.name}" is not available at this point (declare it in global.tools, or discover it from toolLibrary in an earlier step)`,
        );
      }
      const input = fillInput(call.input as JsonObject, seed, `${callPath}.input`) as JsonObject;
      reply.push({ type: 'tool_use', id, name: call.name, input } satisfies ToolUseBlock);
      const result = call.result;
      if (typeof result === 'string') {
        toolResults.push(textResult(id, result));
      } else {
        const text =
          result.text ??
          generateFiller({ kind: result.kind ?? 'prose', tokens: result.tokens as number, seed, header: result.header });
        toolResults.push({ ...textResult(id, text), ...(result.isError ? { isError: true } : {}) });
      }
    });
    const discoveredTools = (input.discoverTools ?? []).map((name, nameIndex) =>
      takeFromLibrary(name, `${path}.discoverTools[${nameIndex}]`, context),
    );
    if (discoveredTools.length > 0 && isLast) {
      throw new WorkloadContentError(
        `${path}.discoverTools`,
        'tools are discovered by a tool call: put discoverTools on a step that calls tools',
      );
    }
    const step: WorkloadStep = { step: index, at, reply, toolResults, discoveredTools, skillLoads, subagentTask: null };
    at += input.latency !== undefined ? (parseDuration(input.latency) as number) : DEFAULT_LATENCY_MS;
    return step;
  });
}

/**
 * Tool inputs may hold `{ $filler: { kind, tokens } }` wherever a long string goes (a file's
 * content): it becomes generated text of that size, seeded by the call and the field's path.
 */
function fillInput(value: JsonValue, seed: string, path: string): JsonValue {
  if (Array.isArray(value)) return value.map((item, index) => fillInput(item, seed, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return value;
  const spec = (value as JsonObject).$filler;
  if (spec !== undefined) {
    const kind = (spec as JsonObject)?.kind ?? 'code';
    const tokens = (spec as JsonObject)?.tokens;
    if (typeof kind !== 'string' || !(FILLER_KINDS as readonly string[]).includes(kind)) {
      throw new WorkloadContentError(`${path}.$filler.kind`, `expected one of ${FILLER_KINDS.join(', ')}`);
    }
    if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens <= 0 || tokens > 200_000) {
      throw new WorkloadContentError(`${path}.$filler.tokens`, 'expected a positive whole number of tokens');
    }
    return generateFiller({ kind: kind as FillerKind, tokens, seed: `${seed}/${path}` });
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillInput(item, seed, `${path}.${key}`)]));
}

/** A `toolLibrary` tool becoming available (discovered by a call, or connected at a turn). */
function takeFromLibrary(name: string, path: string, context: TurnContext): DiscoverableTool {
  const found = context.library.get(name);
  if (!found) throw new WorkloadContentError(path, `no tool named "${name}" in toolLibrary`);
  if (context.available.has(name)) throw new WorkloadContentError(path, `tool "${name}" is already available`);
  context.available.add(name);
  return found;
}

function turnParams(input: TurnInput, path: string, available: ReadonlySet<string>): WorkloadTurnParams {
  const params = input.params;
  if (!params) return {};
  const result: WorkloadTurnParams = {};
  if (params.toolChoice !== undefined) {
    if (typeof params.toolChoice === 'string') {
      result.toolChoice = { type: params.toolChoice };
    } else {
      if (!available.has(params.toolChoice.tool)) {
        throw new WorkloadContentError(
          `${path}.toolChoice.tool`,
          `tool "${params.toolChoice.tool}" is not available at this turn`,
        );
      }
      result.toolChoice = { type: 'tool', name: params.toolChoice.tool };
    }
  }
  if (params.thinking !== undefined) {
    result.thinking =
      typeof params.thinking === 'string'
        ? { type: params.thinking }
        : { type: 'enabled', budgetTokens: params.thinking.budgetTokens };
  }
  if (params.effort !== undefined) result.effort = params.effort;
  if (params.parallelToolCalls !== undefined) result.parallelToolCalls = params.parallelToolCalls;
  if (params.retention !== undefined) result.retention = params.retention;
  return result;
}

/** An OpenAI reasoning item as the canonical signed thinking block, with a seeded `encrypted_content`. */
function reasoningBlock(input: { summary: string; encryptedTokens?: number }, context: TurnContext, step: number): ThinkingBlock {
  const seed = `${context.workload}/t${context.turn}/s${step}/reasoning`;
  const encrypted = Buffer.from(generateFiller({ kind: 'prose', tokens: input.encryptedTokens ?? 200, seed })).toString('base64');
  return thinkingFromReasoningItem({
    id: `rs_${digest(seed).slice(0, 24)}`,
    summary: input.summary ? [{ type: 'summary_text', text: input.summary }] : [],
    encrypted_content: encrypted,
  });
}

function mergeTail(
  everyTurn: TailInput | undefined,
  own: TailInput | undefined,
  skills: Set<string>,
  path: string,
): WorkloadTail {
  const merged = { ...everyTurn, ...own };
  (merged.skills ?? []).forEach((name, index) => {
    if (!skills.has(name)) throw new WorkloadContentError(`${path}.skills[${index}]`, `no skill named "${name}" in skills`);
  });
  return {
    memoryRecall: merged.memoryRecall ?? null,
    time: merged.time ?? false,
    workingContext: merged.workingContext ?? null,
    skills: merged.skills ?? [],
  };
}
