import type { Message } from '../../../model/content.js';
import type { CanonicalRequest } from '../../../model/request.js';
import { assemble } from '../../../session/assemble.js';
import { Session } from '../../../session/session.js';
import { currentTimeProvider, tailProvider } from '../../../session/tail-provider.js';
import { TOOLS as FIXTURE_TOOLS, PNG_1X1, parallelReadStep } from '../../anthropic/test-support/fixtures.js';

/**
 * The Anthropic fixtures' two tools (schema keys out of order), 1x1 PNG and parallel-read tool step:
 * one copy for every adapter's tests.
 */
export { FIXTURE_TOOLS, PNG_1X1, parallelReadStep };

export interface FixtureSession {
  session: Session;
  request(): CanonicalRequest;
}

/** A session with global and session static zones and a three-item tail (one before the user's text). */
export function fixtureSession(model: string, options: { id?: string; tail?: boolean } = {}): FixtureSession {
  let turn = 0;
  const session = new Session({
    id: options.id ?? 'session-1',
    model,
    global: {
      tools: FIXTURE_TOOLS,
      system: [
        { label: 'persona', text: 'You are a careful coding agent.' },
        { label: 'guidelines', text: 'Prefer small, reviewable changes.' },
      ],
    },
    sessionStatic: { system: [{ label: 'project', text: 'Project: demo. Session session-1.' }] },
    tail:
      options.tail === false
        ? []
        : [
            {
              kind: 'skills',
              position: 'before-user-text',
              render: (context) => (context.inToolLoop ? null : 'Skill matched: testing.'),
            },
            currentTimeProvider(),
            tailProvider('memory-recall', () => `Recall: note ${turn}.`),
          ],
    params: { maxTokens: 1024 },
    clock: () => Date.UTC(2026, 10, 21, 12, 0, 0),
  });
  return {
    session,
    request: () => {
      turn += 1;
      return assemble(session);
    },
  };
}

/** Plain chat: one finished exchange and a new user message. */
export function plainChat(model: string): CanonicalRequest {
  const fixture = fixtureSession(model);
  fixture.session.appendUserText('What does the build script do?');
  fixture.session.append({ role: 'assistant', content: [{ type: 'text', text: 'It compiles TypeScript.' }] });
  fixture.session.appendUserText('And the tests?');
  return fixture.request();
}

const PARALLEL_CALLS: Message = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'Reading both files.' },
    { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } },
    { type: 'tool_use', id: 'call_b', name: 'grep', input: { pattern: 'TODO', glob: '*.ts' } },
  ],
};
const PARALLEL_RESULTS: Message = {
  role: 'user',
  content: [
    { type: 'tool_result', toolUseId: 'call_a', content: [{ type: 'text', text: 'export const a = 1;' }] },
    { type: 'tool_result', toolUseId: 'call_b', content: [{ type: 'text', text: 'b.ts:3: TODO' }], isError: false },
  ],
};

/** A tool loop with two parallel calls; the request continues after their results (tail present). */
export function toolLoop(model: string): CanonicalRequest {
  const fixture = fixtureSession(model);
  fixture.session.appendUserText('Check a.ts and find TODOs.');
  fixture.session.append(PARALLEL_CALLS);
  fixture.session.append(PARALLEL_RESULTS);
  return fixture.request();
}

/** The same tool loop without tail content. */
export function toolLoopWithoutTail(model: string): CanonicalRequest {
  const fixture = fixtureSession(model, { tail: false });
  fixture.session.appendUserText('Check a.ts and find TODOs.');
  fixture.session.append(PARALLEL_CALLS);
  fixture.session.append(PARALLEL_RESULTS);
  return fixture.request();
}

/** Images in a user message and in a tool result. */
export function withImages(model: string): CanonicalRequest {
  const fixture = fixtureSession(model);
  fixture.session.append({
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG_1X1 } },
    ],
  });
  fixture.session.append({
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'call_s', name: 'read_file', input: { path: 'shot.png' } }],
  });
  fixture.session.append({
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolUseId: 'call_s',
        content: [
          { type: 'text', text: 'screenshot' },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/shot.png' } },
        ],
      },
    ],
  });
  return fixture.request();
}

/** Reasoning: a signed thinking block (in the OpenAI Responses signature format) before a tool call. */
export function withReasoning(model: string): CanonicalRequest {
  const fixture = fixtureSession(model);
  fixture.session.appendUserText('Fix the failing test.');
  fixture.session.append({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'The test imports a missing file.', signature: 'openai-reasoning:v1:rs_1:gAAAAencrypted' },
      { type: 'tool_use', id: 'call_r', name: 'read_file', input: { path: 'test.ts' } },
    ],
  });
  fixture.session.append({
    role: 'user',
    content: [{ type: 'tool_result', toolUseId: 'call_r', content: [{ type: 'text', text: 'import x from "./x";' }] }],
  });
  return fixture.request();
}
