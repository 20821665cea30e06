import { OPERATING_GUIDELINES } from '../../providers/anthropic/operating-guidelines.js';
import type { ScriptedTurn } from './anthropic-replies.js';

/**
 * One scripted multi-turn coding-agent conversation, shared by every integration comparison:
 * six user turns, each a tool loop of two or three tool steps and a final answer, with a clock
 * and a memory recall that change on every turn (the volatile context real agents put in the
 * system prompt).
 */
export const CODING_AGENT_MODEL = 'claude-sonnet-4-5';

export const CODING_AGENT_PERSONA = `You are Forge, a careful coding agent working in the user's repository.\n\n${OPERATING_GUIDELINES}`;

export interface ScriptedTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, { type: 'string'; description: string }>; required: string[] };
}

const toolDescription = (what: string) =>
  `${what} Use it instead of guessing: the repository is the source of truth. Paths are relative to the repository root; ` +
  'never pass absolute paths or paths outside the repository. Results longer than 20,000 characters are cut, and the cut ' +
  'is marked. Prefer several narrow calls over one broad one, and read a file before you change it.';

export const CODING_AGENT_TOOLS: readonly ScriptedTool[] = [
  tool('read_file', 'Read a text file from the repository and return its contents with line numbers.', { path: 'File path.' }),
  tool('grep', 'Search the repository with a regular expression and return matching lines with their paths.', {
    pattern: 'Regular expression.',
    glob: 'Optional file glob to search in.',
  }),
  tool('edit_file', 'Replace one exact occurrence of a string in a file with another string.', {
    path: 'File path.',
    old: 'Exact text to replace.',
    new: 'Replacement text.',
  }),
  tool('run_tests', 'Run the project test command for one test file or the whole suite and return the summary.', {
    target: 'Test file or "all".',
  }),
  tool('list_directory', 'List the entries of a directory in the repository, directories first.', { path: 'Directory path.' }),
];

function tool(name: string, what: string, properties: Record<string, string>): ScriptedTool {
  return {
    name,
    description: toolDescription(what),
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, description]) => [key, { type: 'string' as const, description }]),
      ),
      required: Object.keys(properties).slice(0, 1),
    },
  };
}

export interface ScriptedUserTurn {
  user: string;
  /** The model's answers for this turn, in order: tool-call steps, then the final text. */
  replies: ScriptedTurn[];
}

const call = (id: string, name: string, input: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ id, name, input }] });

export const CODING_AGENT_TURNS: readonly ScriptedUserTurn[] = [
  {
    user: 'The CI job fails in src/session/session.ts. Find out why.',
    replies: [
      call('t1a', 'read_file', { path: 'src/session/session.ts' }),
      call('t1b', 'run_tests', { target: 'src/session/session.test.ts' }),
      { text: 'The append path skips validation when a tool result arrives before its call; the test expects a typed error.' },
    ],
  },
  {
    user: 'Fix it, keep the error message style of the rest of the file.',
    replies: [
      call('t2a', 'grep', { pattern: 'ValidationError\\(', glob: 'src/session/*.ts' }),
      call('t2b', 'edit_file', {
        path: 'src/session/session.ts',
        old: 'if (!call) return;',
        new: "if (!call) throw new ValidationError('tool_result', 'a matching tool_use');",
      }),
      call('t2c', 'run_tests', { target: 'src/session/session.test.ts' }),
      { text: 'Fixed: an orphan tool result now throws a ValidationError naming the block; the session tests pass.' },
    ],
  },
  {
    user: 'Are there other places with the same pattern?',
    replies: [
      call('t3a', 'grep', { pattern: 'if \\(!call\\) return', glob: 'src/**/*.ts' }),
      call('t3b', 'read_file', { path: 'src/compaction/pipeline.ts' }),
      { text: 'One more in compaction/pipeline.ts, where skipping is intended: it drops offloaded results on purpose.' },
    ],
  },
  {
    user: 'Add a regression test for the session case.',
    replies: [
      call('t4a', 'read_file', { path: 'src/session/session.test.ts' }),
      call('t4b', 'edit_file', {
        path: 'src/session/session.test.ts',
        old: "describe('append'",
        new: "describe('append (orphan results)'",
      }),
      call('t4c', 'run_tests', { target: 'src/session/session.test.ts' }),
      { text: 'Added a test that appends a tool result without its call and expects the typed error; it passes.' },
    ],
  },
  {
    user: 'Run the whole suite.',
    replies: [
      call('t5a', 'run_tests', { target: 'all' }),
      call('t5b', 'list_directory', { path: 'test-output' }),
      { text: 'All 1,412 tests pass; no snapshot changed.' },
    ],
  },
  {
    user: 'Write the commit message.',
    replies: [
      call('t6a', 'grep', { pattern: 'ValidationError', glob: 'src/session/session.ts' }),
      call('t6b', 'read_file', { path: 'CHANGELOG.md' }),
      { text: 'Session: an orphan tool_result is a typed ValidationError instead of a silent skip (regression test added).' },
    ],
  },
];

/** Deterministic tool output of realistic size (a few hundred tokens). */
export function scriptedToolOutput(name: string, input: unknown): string {
  const seed = `${name} ${JSON.stringify(input)}`;
  const lines = Array.from(
    { length: 40 },
    (_, index) => `${String(index + 1).padStart(4)} | ${seed} line ${index + 1}: const value${index} = compute(${index});`,
  );
  return lines.join('\n');
}

/** Minutes between user turns and seconds between steps, on the conversation's clock. */
export const TURN_GAP_MS = 90_000;
export const STEP_GAP_MS = 8_000;
export const SCRIPT_START_MS = Date.UTC(2026, 10, 23, 9, 0, 0);

/** The clock text an agent puts in its prompt at a turn (changes every turn). */
/**
 * The script's volatile context as a drop-in tail function returns it, from the call's own
 * `{ turn }` (1 = the first user turn): no state outside the call. `scope` as in `Session`.
 */
export function codingAgentTail(
  context: { turn: number },
  scope: 'auto' | 'turn' | 'request' = 'auto',
): Array<{ text: string; scope: 'auto' | 'turn' | 'request' }> {
  const index = Math.max(0, context.turn - 1);
  return [
    { text: clockText(index), scope },
    { text: memoryRecallText(index), scope },
  ];
}

export function clockText(turn: number): string {
  return `Current time: ${new Date(SCRIPT_START_MS + turn * TURN_GAP_MS).toISOString()}`;
}

/** The memory recall for a turn (changes every turn). */
export function memoryRecallText(turn: number): string {
  const memories = [
    'The user prefers small commits with imperative subjects.',
    'CI runs on Node 20 and 22.',
    'The session module was last refactored two weeks ago.',
    'The user asked for typed errors everywhere last week.',
    'Tests must not use the network.',
    'CHANGELOG entries are grouped by module.',
  ];
  return `Relevant memories:\n- ${memories[turn % memories.length]}\n- ${memories[(turn + 2) % memories.length]}`;
}

/** The whole dynamic system prompt of the documented recipes: persona, then clock and memory. */
export function dynamicSystemPrompt(turn: number): string {
  return `${CODING_AGENT_PERSONA}\n\n${clockText(turn)}\n\n${memoryRecallText(turn)}`;
}

/**
 * The same six turns with parallel tool calls: a turn's first two tool steps become one step
 * calling both tools at once (the results go back as one user message of two `tool_result`s).
 */
export const PARALLEL_CODING_AGENT_TURNS: readonly ScriptedUserTurn[] = CODING_AGENT_TURNS.map((turn) => {
  const [first, second, ...rest] = turn.replies;
  if (!first || !second || !('toolCalls' in first) || !('toolCalls' in second)) return turn;
  return { ...turn, replies: [{ toolCalls: [...first.toolCalls, ...second.toolCalls] }, ...rest] };
});

/** The model's replies of the whole conversation, in request order. */
export function scriptedReplies(turns: readonly ScriptedUserTurn[] = CODING_AGENT_TURNS): ScriptedTurn[] {
  return turns.flatMap((turn) => turn.replies);
}

/** Request start times of the whole conversation, in request order (for the cache model). */
export function scriptedRequestTimes(turns: readonly ScriptedUserTurn[] = CODING_AGENT_TURNS): number[] {
  return turns.flatMap((turn, turnIndex) =>
    turn.replies.map((_reply, step) => SCRIPT_START_MS + turnIndex * TURN_GAP_MS + step * STEP_GAP_MS),
  );
}
