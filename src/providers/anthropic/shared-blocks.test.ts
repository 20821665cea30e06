import { describe, expect, it } from 'vitest';
import { normalizeAnthropicBody } from '../../cache/wire/normalize-anthropic.js';
import { assemble } from '../../session/assemble.js';
import { convertToAnthropic } from './convert-request.js';
import { fixtureSession } from './test-support/fixtures.js';

type Block = Record<string, unknown>;
const contentOf = (body: { messages: Array<{ content: unknown }> }, index: number) => body.messages[index]?.content as Block[];

describe('history wire blocks shared between requests (copy-on-mark)', () => {
  it('shares frozen unmarked blocks, marks a copy, and leaves earlier bodies as they were', () => {
    const session = fixtureSession();
    session.appendUserText('What does the build script do?');
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'It compiles TypeScript.' }] });
    session.appendUserText('And the tests?');
    const first = convertToAnthropic(assemble(session), { padding: 'never' });
    const firstJson = JSON.stringify(first.body);
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'They run vitest.' }] });
    session.appendUserText('How long do they take?');
    const second = convertToAnthropic(assemble(session), { padding: 'never' });

    // The first body did not change when the second request marked its own blocks.
    expect(JSON.stringify(first.body)).toBe(firstJson);
    const firstAnswer = contentOf(first.body, 1)[0] as Block;
    const secondAnswer = contentOf(second.body, 1)[0] as Block;
    const marked = second.metadata.breakpoints.filter((mark) => mark.path.startsWith('messages['));
    expect(marked.length).toBeGreaterThan(0);
    for (const mark of marked) {
      const [, message, block] = /messages\[(\d+)\]\.content\[(\d+)\]/.exec(mark.path) ?? [];
      const wire = contentOf(second.body, Number(message))[Number(block)] as Block;
      expect(wire.cache_control).toBeDefined();
      expect(Object.isFrozen(wire)).toBe(false);
    }
    // An unmarked history block is one frozen object in both bodies.
    if (secondAnswer.cache_control === undefined && firstAnswer.cache_control === undefined) {
      expect(secondAnswer).toBe(firstAnswer);
      expect(Object.isFrozen(secondAnswer)).toBe(true);
    }
    const unmarked = contentOf(second.body, 0).find((block) => block.cache_control === undefined);
    if (unmarked) expect(Object.isFrozen(unmarked)).toBe(true);
  });

  it('normalises a shared block the same as a fresh copy of it', () => {
    const session = fixtureSession();
    session.appendUserText('Read a.ts');
    session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } }],
    });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'call_a', content: [{ type: 'text', text: 'export const a = 1;' }] }],
    });
    const { body } = convertToAnthropic(assemble(session), { padding: 'never' });
    const shared = normalizeAnthropicBody(body as unknown as Record<string, unknown>);
    const again = normalizeAnthropicBody(body as unknown as Record<string, unknown>);
    const fresh = normalizeAnthropicBody(JSON.parse(JSON.stringify(body)));
    expect(again).toEqual(shared);
    expect(fresh).toEqual(shared);
  });
});
