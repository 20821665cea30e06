import { z } from 'zod';
import type { EventBus } from '../events/event-bus.js';
import type { ToolDefinition, ToolResultBlock, ToolUseBlock } from '../model/content.js';
import { ToolExecutionError } from '../model/errors.js';
import type { JsonObject } from '../model/json.js';
import type { ActivationBudget } from './activation-budget.js';
import { preloadedSkillHeading, preloadedSkillSection } from './discovery-index.js';
import { SKILL_NAME_MAX_LENGTH } from './skill-name.js';
import type { SkillStore } from './skill-store.js';
import { charsPerTokenEstimate, type TextTokenCounter } from './text-token-counter.js';

export const SKILL_SEARCH_TOOL: ToolDefinition = Object.freeze({
  name: 'skill_search',
  description:
    'Filter the skill index: returns the skills whose name or description contains the query (case-insensitive), one "- name: description" line each.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'Words to look for in skill names and descriptions.' } },
    required: ['query'],
    additionalProperties: false,
  },
}) as ToolDefinition;

export const SKILL_LOAD_TOOL: ToolDefinition = Object.freeze({
  name: 'skill_load',
  description:
    'Load a skill by name and return its full instructions. Load a skill once; its text stays in the conversation. Skills marked [preloaded] are already in the system prompt.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string', description: 'The skill name exactly as listed in the skill index.' } },
    required: ['name'],
    additionalProperties: false,
  },
}) as ToolDefinition;

/** What a skill tool returns: the text the agent sees, plus metadata for the harness. */
export interface SkillToolResult {
  text: string;
  isError: boolean;
  metadata: JsonObject;
}

/** The session facts skill tools need for events: its id, bus and clock. */
export interface SkillToolSession {
  readonly id: string;
  readonly bus: EventBus | undefined;
  readonly clock: () => number;
}

export interface SkillToolsOptions {
  store: SkillStore;
  budget: ActivationBudget;
  session: SkillToolSession;
  /** Counts loaded bodies for the budget and `skill.loaded`; chars/4 only when absent. */
  tokenCounter?: TextTokenCounter;
}

/** Longest search query accepted; a query is echoed in the result, so it must stay short. */
export const SKILL_SEARCH_QUERY_MAX_LENGTH = 1_000;

// Bounded so that a hostile or runaway model cannot get megabytes echoed back into history.
const searchInput = z.object({ query: z.string().max(SKILL_SEARCH_QUERY_MAX_LENGTH) }).strict();
const loadInput = z.object({ name: z.string().min(1).max(SKILL_NAME_MAX_LENGTH) }).strict();

/**
 * `skill_search` and `skill_load` for one session. `handle` runs a tool and throws
 * ToolExecutionError on failure (for harnesses with their own dispatcher); `execute` turns a
 * tool_use block into the tool_result block to append, emitting `tool.failed` on failure.
 *
 * @example
 * const tools = new SkillTools({ store, budget, session });
 * const { block } = tools.execute({ type: 'tool_use', id: 'toolu_1', name: 'skill_load', input: { name: 'pdf-tools' } });
 * session.append({ role: 'user', content: [block] });
 */
export class SkillTools {
  readonly definitions: readonly ToolDefinition[] = [SKILL_SEARCH_TOOL, SKILL_LOAD_TOOL];
  private readonly options: SkillToolsOptions;
  private readonly counter: TextTokenCounter;

  constructor(options: SkillToolsOptions) {
    this.options = options;
    this.counter = options.tokenCounter ?? charsPerTokenEstimate;
  }

  handles(toolName: string): boolean {
    return toolName === SKILL_SEARCH_TOOL.name || toolName === SKILL_LOAD_TOOL.name;
  }

  /** Run one skill tool. Throws ToolExecutionError for bad input, unknown skills and budget. */
  handle(toolName: string, input: unknown, toolUseId: string | null): SkillToolResult {
    switch (toolName) {
      case 'skill_search':
        return this.search(parseInput(searchInput, input, toolName).query);
      case 'skill_load':
        return this.load(parseInput(loadInput, input, toolName).name, toolUseId);
      default:
        throw new ToolExecutionError(toolName, `${toolName} is not a skill tool (expected skill_search or skill_load)`);
    }
  }

  /**
   * Answer a tool_use with a tool_result block. A ToolExecutionError becomes an error result
   * the agent sees and a `tool.failed` event; other errors are bugs and propagate.
   */
  execute(toolUse: ToolUseBlock): { block: ToolResultBlock; metadata: JsonObject } {
    try {
      const result = this.handle(toolUse.name, toolUse.input, toolUse.id);
      return { block: resultBlock(toolUse.id, result.text, false), metadata: result.metadata };
    } catch (error) {
      if (!(error instanceof ToolExecutionError)) throw error;
      const { session } = this.options;
      session.bus?.emit('tool.failed', session.id, session.clock(), {
        toolName: toolUse.name,
        toolUseId: toolUse.id,
        code: error.code,
        message: error.message,
      });
      return { block: resultBlock(toolUse.id, error.message, true), metadata: { error: error.code } };
    }
  }

  private search(query: string): SkillToolResult {
    const needle = query.trim().toLowerCase();
    const { store, budget } = this.options;
    const matches = store.skills.filter(
      (skill) => needle === '' || skill.name.includes(needle) || skill.description.toLowerCase().includes(needle),
    );
    const lines = matches.map((skill) => {
      const mark = budget.isPreloaded(skill.name)
        ? ' [preloaded]'
        : budget.loaded.some((item) => item.name === skill.name)
          ? ' [loaded]'
          : '';
      return `- ${skill.name}${mark}: ${skill.description.replace(/\s+/g, ' ').trim()}`;
    });
    const text = lines.length > 0 ? lines.join('\n') : `No skill name or description contains "${query}".`;
    return { text, isError: false, metadata: { matches: matches.map((skill) => skill.name) } };
  }

  private load(name: string, toolUseId: string | null): SkillToolResult {
    const { store, budget, session } = this.options;
    const skill = store.get(name);
    if (!skill) {
      const known = store.names;
      const listed = known.slice(0, 20).join(', ') + (known.length > 20 ? `, ... (${known.length} in all)` : '');
      throw new ToolExecutionError(
        'skill_load',
        `unknown skill "${name}". Known skills: ${listed || '(none)'}. Use skill_search to find one.`,
      );
    }
    const text = preloadedSkillSection(skill);
    const tokens = this.counter.countText(text, 'prose');
    const outcome = budget.activate(name, tokens, toolUseId);
    switch (outcome.kind) {
      case 'preloaded':
        return {
          text: `${preloadedSkillHeading(name)} (source: ${skill.source})\n\nThis skill's body is already loaded in the system prompt (pre-activated at session start). Re-read the system prompt section "${preloadedSkillHeading(name)}" for its operating instructions.`,
          isError: false,
          metadata: { already_preloaded: true, skill: name, version: skill.version },
        };
      case 'reloaded':
        return {
          text: `${preloadedSkillHeading(name)} (source: ${skill.source})\n\nThis skill was already loaded earlier in this session${outcome.earlier.toolUseId ? ` (tool call ${outcome.earlier.toolUseId})` : ''}. Re-read that tool result for its operating instructions; loading it again costs nothing and adds nothing.`,
          isError: false,
          metadata: { already_loaded: true, skill: name, version: skill.version },
        };
      case 'activated':
        session.bus?.emit('skill.loaded', session.id, session.clock(), {
          source: skill.source,
          skillId: skill.name,
          version: skill.version,
          loadTokens: tokens,
          loadReason: 'on_demand',
          toolUseId,
        });
        return { text, isError: false, metadata: { skill: name, version: skill.version, tokens } };
    }
  }
}

function resultBlock(toolUseId: string, text: string, isError: boolean): ToolResultBlock {
  return { type: 'tool_result', toolUseId, content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}

function parseInput<T>(schema: z.ZodType<T>, input: unknown, toolName: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'input';
  throw new ToolExecutionError(toolName, `invalid ${toolName} input: ${where}: ${issue?.message ?? 'invalid'}`);
}
