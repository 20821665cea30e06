import type { EventBus } from '../../src/events/event-bus.js';
import type { Message, ToolDefinition } from '../../src/model/content.js';
import { mulberry32 } from '../../src/model/mulberry32.js';
import { Session } from '../../src/session/session.js';
import { currentTimeProvider, tailProvider } from '../../src/session/tail-provider.js';

/** Deterministic PRNG (mulberry32): the same seed builds the same session everywhere. */
export const seededRandom = mulberry32;

const WORDS =
  'the build fails because a type is missing from the config so we read the file then run the tests again and check the output for errors before we change anything in the module that exports the handler which the server imports at start'.split(
    ' ',
  );
const IDENTIFIERS = [
  'handler',
  'config',
  'request',
  'session',
  'result',
  'items',
  'index',
  'value',
  'options',
  'cache',
  'prefix',
  'tokens',
];

const TOOLS: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file from the workspace and return its contents with line numbers.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
      required: ['path'],
    },
  },
  {
    name: 'grep',
    description: 'Search the workspace for a regular expression and return matching lines.',
    inputSchema: { type: 'object', properties: { pattern: { type: 'string' }, glob: { type: 'string' } }, required: ['pattern'] },
  },
  {
    name: 'run_tests',
    description: 'Run the test suite, optionally filtered, and return the report.',
    inputSchema: { type: 'object', properties: { filter: { type: 'string' } } },
  },
  {
    name: 'edit_file',
    description: 'Replace an exact string in a file with another string.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
      required: ['path', 'old', 'new'],
    },
  },
];

function sentence(random: () => number, words: number): string {
  const parts: string[] = [];
  for (let index = 0; index < words; index++) parts.push(WORDS[Math.floor(random() * WORDS.length)] as string);
  const text = parts.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function prose(random: () => number, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(random, 8 + Math.floor(random() * 14))).join(' ');
}

function codeLines(random: () => number, lines: number, salt: number): string {
  const out: string[] = [];
  for (let line = 0; line < lines; line++) {
    const name = IDENTIFIERS[Math.floor(random() * IDENTIFIERS.length)] as string;
    const other = IDENTIFIERS[Math.floor(random() * IDENTIFIERS.length)] as string;
    const indent = '  '.repeat(Math.floor(random() * 3));
    switch (Math.floor(random() * 4)) {
      case 0:
        out.push(`${String(line + 1).padStart(4)}\t${indent}const ${name}${salt % 97} = ${other}.get(${line});`);
        break;
      case 1:
        out.push(`${String(line + 1).padStart(4)}\t${indent}if (${name} === undefined) return ${other};`);
        break;
      case 2:
        out.push(`${String(line + 1).padStart(4)}\t${indent}// ${sentence(random, 6)}`);
        break;
      default:
        out.push(`${String(line + 1).padStart(4)}\t${indent}export function ${name}${line}(${other}: string): number {`);
    }
  }
  return out.join('\n');
}

/** A tool call with a realistic result: file reads (40-160 lines), greps, test reports. */
function toolStep(random: () => number, turn: number, step: number): [Message, Message] {
  const id = `toolu_${turn}_${step}`;
  const choice = random();
  let call: Message;
  let output: string;
  if (choice < 0.5) {
    const path = `src/${IDENTIFIERS[Math.floor(random() * IDENTIFIERS.length)]}/${turn}-${step}.ts`;
    call = {
      role: 'assistant',
      content: [
        { type: 'text', text: sentence(random, 10) },
        { type: 'tool_use', id, name: 'read_file', input: { path } },
      ],
    };
    output = codeLines(random, 10 + Math.floor(random() * 32), turn * 31 + step);
  } else if (choice < 0.75) {
    call = {
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'grep', input: { pattern: `${IDENTIFIERS[turn % 12]}\\(`, glob: 'src/**/*.ts' } }],
    };
    output = Array.from(
      { length: 5 + Math.floor(random() * 15) },
      (_, index) => `src/file-${turn}-${index}.ts:${index * 7 + 3}: ${codeLines(random, 1, index).trim()}`,
    ).join('\n');
  } else {
    call = { role: 'assistant', content: [{ type: 'tool_use', id, name: 'run_tests', input: { filter: `turn-${turn}` } }] };
    output = `${Array.from({ length: 3 + Math.floor(random() * 10) }, (_, index) => ` ✓ src/module-${turn}-${index}.test.ts (${index + 2} tests) ${Math.floor(random() * 90)}ms`).join('\n')}\n Tests: ${turn + step} passed`;
  }
  const result: Message = {
    role: 'user',
    content: [{ type: 'tool_result', toolUseId: id, content: [{ type: 'text', text: output }] }],
  };
  return [call, result];
}

export interface SyntheticSessionOptions {
  turns: number;
  seed?: number;
  /** End mid tool loop (the last message carries tool results), the most common next request. */
  endInToolLoop?: boolean;
  /** Publish the session's events here (the runtime's `request.assembled` then carries block deltas). */
  bus?: EventBus;
}

/**
 * An agent session of `turns` user turns, each a user question, 0-3 tool steps and a final
 * assistant answer; about 500 tokens per turn (o200k), about 500K tokens at 1,000 turns.
 * The tail has the current time and a memory recall that changes every request.
 */
export function syntheticSession(options: SyntheticSessionOptions): {
  session: Session;
  nextToolStep: () => void;
  nextTurn: () => void;
} {
  const random = seededRandom(options.seed ?? 42);
  let requestNumber = 0;
  let clock = 1_700_000_000_000;
  const session = new Session({
    id: `bench-${options.turns}`,
    model: 'claude-sonnet-4-5',
    global: {
      tools: TOOLS,
      system: [
        { label: 'persona', text: prose(random, 12) },
        { label: 'guidelines', text: prose(random, 30) },
      ],
    },
    sessionStatic: {
      system: [{ label: 'project', text: `Project bench. Session id bench-${options.turns}. ${prose(random, 8)}` }],
    },
    tail: [
      currentTimeProvider(),
      tailProvider(
        'memory-recall',
        (context) => `[memory-recall] request ${++requestNumber}: ${context.latestUserText.slice(0, 80)}`,
      ),
    ],
    clock: () => clock,
    ...(options.bus ? { bus: options.bus } : {}),
  });
  for (let turn = 1; turn <= options.turns; turn++) {
    clock += 60_000;
    session.appendUserText(`${prose(random, 1 + Math.floor(random() * 3))} (turn ${turn})`);
    const steps = Math.floor(random() * 4);
    for (let step = 0; step < steps; step++) for (const message of toolStep(random, turn, step)) session.append(message);
    const lastTurn = turn === options.turns;
    if (lastTurn && options.endInToolLoop) {
      for (const message of toolStep(random, turn, steps)) session.append(message);
    } else {
      session.append({ role: 'assistant', content: [{ type: 'text', text: prose(random, 2 + Math.floor(random() * 6)) }] });
    }
  }
  let extraStep = 0;
  return {
    session,
    /** Append one more tool step (call and result) to the current tool loop. */
    nextToolStep: () => {
      clock += 5_000;
      for (const message of toolStep(random, options.turns + 1, 100 + extraStep++)) session.append(message);
    },
    /** Answer the open tool loop and start a new turn with a user question. */
    nextTurn: () => {
      clock += 60_000;
      session.append({ role: 'assistant', content: [{ type: 'text', text: prose(random, 2) }] });
      session.appendUserText(`${prose(random, 1)} (turn ${options.turns + 1 + extraStep++})`);
    },
  };
}
