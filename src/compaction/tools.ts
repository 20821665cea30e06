import type { EventBus } from '../events/event-bus.js';
import type { ImageBlock, TextBlock, ToolDefinition } from '../model/content.js';
import { ToolExecutionError, ValidationError } from '../model/errors.js';
import { RESTORE_TOOL_NAME } from './markers.js';
import type { OffloadStore } from './offload-store.js';
import type { SessionNotes } from './session-notes.js';

/** A tool Cachet handles itself: its definition (for the global tools zone) and its handler. */
export interface CompactionTool {
  definition: ToolDefinition;
  /** Run the tool; returns the tool_result content. Bad input or unknown ids throw `ToolExecutionError`. */
  run(input: unknown): Promise<Array<TextBlock | ImageBlock>>;
}

export const CONTEXT_RESTORE_TOOL: ToolDefinition = {
  name: RESTORE_TOOL_NAME,
  description:
    'Bring back, exactly, content Cachet moved out of the context (a truncated or masked tool output, an older image). ' +
    'Pass the id named in the marker, e.g. {"id":"ctx_0123456789abcdef"}.',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'string', description: 'The restore id from the marker (ctx_ followed by 16 hex digits).' } },
    required: ['id'],
    additionalProperties: false,
  },
};

export const SESSION_NOTE_TOOL: ToolDefinition = {
  name: 'session_note',
  description:
    'Record a short note (a decision, a constraint, a fact to keep). Notes stay in the context for the rest of the session, ' +
    'also after the conversation is compacted.',
  inputSchema: {
    type: 'object',
    properties: { note: { type: 'string', description: 'The note, in one or a few sentences.' } },
    required: ['note'],
    additionalProperties: false,
  },
};

/** The definitions to add to the session's global tools (stable order: restore, then note). */
export const COMPACTION_TOOL_DEFINITIONS: readonly ToolDefinition[] = [CONTEXT_RESTORE_TOOL, SESSION_NOTE_TOOL];

/**
 * `context_restore(id)`: returns the offloaded content byte-for-byte and emits `context.restored`.
 *
 * @example
 * const tool = createContextRestoreTool(store, { sessionId: 's1', bus, clock: Date.now, countTokens });
 * await tool.run({ id: 'ctx_0123456789abcdef' });
 */
export function createContextRestoreTool(
  store: OffloadStore,
  context: { sessionId: string; bus?: EventBus; clock: () => number },
): CompactionTool {
  return {
    definition: CONTEXT_RESTORE_TOOL,
    async run(input) {
      const id = (input as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || !/^ctx_[0-9a-f]{16}$/.test(id)) {
        throw new ToolExecutionError(
          RESTORE_TOOL_NAME,
          `input.id: expected a restore id like ctx_0123456789abcdef, got ${echo(id)}`,
        );
      }
      let record: Awaited<ReturnType<OffloadStore['get']>>;
      try {
        record = await store.get(id, context.sessionId);
      } catch (error) {
        // A damaged or unreadable record is the agent's answer, not a crash of its loop.
        const reason = error instanceof Error ? error.message : String(error);
        throw new ToolExecutionError(RESTORE_TOOL_NAME, `input.id: the content ${id} cannot be restored: ${reason}`, {
          cause: error,
        });
      }
      if (!record) throw new ToolExecutionError(RESTORE_TOOL_NAME, `input.id: no offloaded content with id ${id}`);
      context.bus?.emit('context.restored', context.sessionId, context.clock(), { restoreId: id, tokens: record.originalTokens });
      return record.content;
    },
  };
}

/** `session_note(note)`: records a note that survives compaction, at no model cost. */
export function createSessionNoteTool(notes: SessionNotes): CompactionTool {
  return {
    definition: SESSION_NOTE_TOOL,
    async run(input) {
      const note = (input as { note?: unknown } | null)?.note;
      if (typeof note !== 'string' || note.trim().length === 0) {
        throw new ToolExecutionError(SESSION_NOTE_TOOL.name, 'input.note: expected a non-empty string');
      }
      let index: number;
      try {
        index = notes.add(note);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        throw new ToolExecutionError(SESSION_NOTE_TOOL.name, `input.${error.message}`, { cause: error });
      }
      return [{ type: 'text', text: `Noted (note ${index}): ${note}` }];
    },
  };
}

/** A bad input quoted in an error, cut short: the agent may have sent megabytes. */
function echo(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}… (${text.length} characters)` : text;
}
