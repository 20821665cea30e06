import type { EventBus } from '../../events/event-bus.js';
import type { ToolDefinition } from '../../model/content.js';
import type { JsonObject } from '../../model/json.js';
import { Session } from '../session.js';
import { currentTimeProvider, tailProvider } from '../tail-provider.js';

/** Fixed clock for fixtures: 2023-11-14T22:13:20Z. */
export const DEMO_NOW = 1_700_000_000_000;

/** Rebuild an object with its keys inserted in reverse order (deeply), to prove key order never matters. */
export function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T;
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).reverse();
  return Object.fromEntries(entries.map(([key, inner]) => [key, reverseKeys(inner)])) as T;
}

export function demoTools(): ToolDefinition[] {
  return [
    {
      name: 'read_file',
      description: 'Read a UTF-8 file from the workspace.',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Workspace-relative path' },
          maxLines: { type: 'integer', minimum: 1 },
        },
        required: ['path'],
        additionalProperties: false,
      },
    },
    {
      name: 'run_tests',
      description: 'Run the test suite and return its output.',
      inputSchema: { type: 'object', properties: { filter: { type: 'string' } } },
    },
  ];
}

export interface DemoSessionOptions {
  keyOrder?: 'natural' | 'reversed';
  bus?: EventBus;
  /** Mutable recall text, read by the memory-recall tail provider on each request. */
  recall?: { text: string };
  workingContext?: { text: string };
}

/**
 * A session with two global tools, a persona and guidelines (global), a project segment and
 * a `[CONTEXT]` pair (session static), and one completed tool loop in history.
 */
export function demoSession(options: DemoSessionOptions = {}): Session {
  const shape = options.keyOrder === 'reversed' ? reverseKeys : <T>(value: T) => value;
  const recall = options.recall ?? { text: '' };
  const workingContext = options.workingContext ?? { text: '' };
  const session = new Session({
    id: 'demo-session-1',
    model: 'claude-sonnet-4-5',
    global: {
      tools: shape(demoTools()),
      system: [
        { label: 'persona', text: 'You are Cachet Demo, a careful coding agent.' },
        { label: 'guidelines', text: 'Read before you write. Run the tests after every change.' },
      ],
    },
    sessionStatic: {
      system: [{ label: 'project', text: 'Project: demo-app. Session id demo-session-1. Attachments: none.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: '[CONTEXT]\nWorking memory: the build uses tsc.' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] },
      ],
    },
    tail: [
      currentTimeProvider(),
      tailProvider('memory-recall', () => recall.text),
      tailProvider('working-context', () => workingContext.text),
    ],
    bus: options.bus,
    clock: () => DEMO_NOW,
  });
  session.appendUserText('Why does the build fail?');
  session.append({
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me read the config.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: shape({ path: 'tsconfig.json', maxLines: 40 } as JsonObject) },
    ],
  });
  session.append({
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolUseId: 'toolu_1',
        content: [{ type: 'text', text: '{ "compilerOptions": { "strict": true } }' }],
      },
    ],
  });
  session.append({
    role: 'assistant',
    content: [{ type: 'text', text: 'Strict mode is on; the error comes from an implicit any.' }],
  });
  return session;
}
