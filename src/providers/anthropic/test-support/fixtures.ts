import type { Message, ToolDefinition } from '../../../model/content.js';
import type { CanonicalRequest, GenerationParams } from '../../../model/request.js';
import { assemble } from '../../../session/assemble.js';
import { type SegmentInput, Session } from '../../../session/session.js';
import { currentTimeProvider, type TailProvider, tailProvider } from '../../../session/tail-provider.js';

/** Schema keys deliberately out of canonical order. */
export const TOOLS: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file from the workspace',
    inputSchema: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } },
  },
  {
    name: 'grep',
    description: 'Search files for a pattern',
    inputSchema: { properties: { pattern: { type: 'string' }, glob: { type: 'string' } }, type: 'object' },
  },
];

export const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';

export const CLOCK = Date.UTC(2026, 10, 21, 12, 0, 0);

export interface FixtureOptions {
  model?: string;
  tail?: TailProvider[];
  sessionStatic?: { system?: SegmentInput[]; messages?: Message[] };
  globalSystem?: SegmentInput[];
  tools?: ToolDefinition[];
  params?: Partial<GenerationParams>;
}

/** The tail used by most fixtures: a matched skill before the user's text, the time, a recall line. */
export function standardTail(): TailProvider[] {
  return [
    {
      kind: 'skills',
      position: 'before-user-text',
      render: (context) => (context.inToolLoop ? null : 'Matched skill: testing.'),
    },
    currentTimeProvider(),
    tailProvider('memory-recall', (context) => `Recall for turn ${context.turn}: prefers pnpm.`),
  ];
}

export function fixtureSession(options: FixtureOptions = {}): Session {
  return new Session({
    id: 'session-1',
    model: options.model ?? 'claude-sonnet-4-5',
    global: {
      tools: options.tools ?? TOOLS,
      system: options.globalSystem ?? [{ label: 'persona', text: 'You are a careful coding agent.' }],
    },
    sessionStatic: options.sessionStatic ?? { system: [{ label: 'project', text: 'Project: demo.' }] },
    tail: options.tail ?? standardTail(),
    params: { maxTokens: 1024, ...options.params },
    clock: () => CLOCK,
  });
}

export function plainChat(options: FixtureOptions = {}): CanonicalRequest {
  const session = fixtureSession(options);
  session.appendUserText('What does the build script do?');
  session.append({ role: 'assistant', content: [{ type: 'text', text: 'It compiles TypeScript.' }] });
  session.appendUserText('And the tests?');
  return assemble(session);
}

/** A tool loop with two parallel calls answered in one user message; the request continues the loop. */
export function parallelToolLoop(options: FixtureOptions = {}): CanonicalRequest {
  const session = fixtureSession(options);
  session.appendUserText('Find the TODOs in a.ts.');
  session.append({
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading and searching.' },
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'call_b', name: 'grep', input: { pattern: 'TODO', glob: '*.ts' } },
    ],
  });
  session.append({
    role: 'user',
    content: [
      { type: 'tool_result', toolUseId: 'call_a', content: [{ type: 'text', text: 'export const a = 1; // TODO' }] },
      { type: 'tool_result', toolUseId: 'call_b', content: [{ type: 'text', text: 'a.ts:1' }], isError: false },
    ],
  });
  return assemble(session);
}

/** Extended thinking with a signed block and a redacted one, inside a tool loop. */
export function thinkingToolLoop(options: FixtureOptions = {}): CanonicalRequest {
  const session = fixtureSession({ params: { thinking: { type: 'enabled', budgetTokens: 2048 } }, ...options });
  session.appendUserText('Is a.ts exported?');
  session.append({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'I should read a.ts first.', signature: 'sig-EqQBCkgIARABGAIiQ' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      { type: 'tool_use', id: 'call_t', name: 'read_file', input: { path: 'a.ts' } },
    ],
  });
  session.append({
    role: 'user',
    content: [{ type: 'tool_result', toolUseId: 'call_t', content: [{ type: 'text', text: 'export const a = 1;' }] }],
  });
  return assemble(session);
}

/** A user message with an image and a PDF document, then the user's question. */
export function imagesAndDocuments(options: FixtureOptions = {}): CanonicalRequest {
  const session = fixtureSession(options);
  session.append({
    role: 'user',
    content: [
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG_1X1 } },
      { type: 'document', source: { kind: 'url', url: 'https://example.com/spec.pdf' }, title: 'Spec' },
      { type: 'text', text: 'Does the screenshot match the spec?' },
    ],
  });
  return assemble(session);
}

/** A session static `[CONTEXT]` user/assistant pair before history. */
export function sessionStaticPair(options: FixtureOptions = {}): CanonicalRequest {
  const session = fixtureSession({
    sessionStatic: {
      system: [{ label: 'project', text: 'Project: demo.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: '[CONTEXT]\nWorking memory: the build uses tsc; tests use vitest.' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] },
      ],
    },
    ...options,
  });
  session.appendUserText('Run the tests.');
  return assemble(session);
}

/**
 * An assistant turn with `count` parallel `read_file` calls after a text block, and the user turn carrying
 * their results: 2 × count + 1 blocks. `step` keeps ids and contents distinct when a session takes several.
 */
export function parallelReadStep(step: number, count: number): Message[] {
  const ids = Array.from({ length: count }, (_, index) => `call_${step}_${index}`);
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${step}: reading ${count} files.` },
        ...ids.map((id, index) => ({ type: 'tool_use' as const, id, name: 'read_file', input: { path: `f${index}.ts` } })),
      ],
    },
    {
      role: 'user',
      content: ids.map((id, index) => ({
        type: 'tool_result' as const,
        toolUseId: id,
        content: [{ type: 'text' as const, text: `export const f${index} = ${step};` }],
      })),
    },
  ];
}

/**
 * A tool loop whose last step made `calls` parallel calls: the step adds 2 × calls + 1 blocks,
 * more than the 20-position lookback when `calls` >= 10.
 */
export function wideToolStep(calls: number, options: FixtureOptions = {}): CanonicalRequest {
  const session = fixtureSession(options);
  session.appendUserText('Read every file.');
  for (const message of parallelReadStep(1, calls)) session.append(message);
  return assemble(session);
}
