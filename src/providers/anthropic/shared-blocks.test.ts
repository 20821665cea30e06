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

  it('shares a history message content array between bodies and copies it to mark', () => {
    const session = fixtureSession();
    session.appendUserText('What does the build script do?');
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'It compiles TypeScript.' }] });
    session.appendUserText('And the tests?');
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'They run vitest.' }] });
    session.appendUserText('How long do they take?');
    const first = convertToAnthropic(assemble(session), { padding: 'never' });
    const firstJson = JSON.stringify(first.body);
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'About a minute.' }] });
    session.appendUserText('Thanks.');
    const second = convertToAnthropic(assemble(session), { padding: 'never' });
    expect(JSON.stringify(first.body)).toBe(firstJson);
    const markedMessages = new Set(
      second.metadata.breakpoints.flatMap((mark) => {
        const found = /messages\[(\d+)\]/.exec(mark.path);
        return found ? [Number(found[1])] : [];
      }),
    );
    // Unmarked history messages send the same frozen array in both bodies.
    const sharedIndex = [1, 2, 3].find((index) => !markedMessages.has(index)) as number;
    expect(contentOf(second.body, sharedIndex)).toBe(contentOf(first.body, sharedIndex));
    expect(Object.isFrozen(contentOf(second.body, sharedIndex))).toBe(true);
    // A marked message gets its own array, with the marker on a copy of the block.
    for (const index of markedMessages) {
      const content = contentOf(second.body, index);
      expect(Object.isFrozen(content)).toBe(false);
      expect(content.some((block) => block.cache_control !== undefined)).toBe(true);
    }
    // The same body as a conversion that shares nothing, and the same units.
    const fresh = convertToAnthropic(JSON.parse(JSON.stringify(assemble(session))), { padding: 'never' });
    expect(JSON.stringify(second.body)).toBe(JSON.stringify(fresh.body));
    const units = (body: unknown) => normalizeAnthropicBody(body as Record<string, unknown>).units;
    expect(units(second.body)).toEqual(units(JSON.parse(JSON.stringify(second.body))));
    // A shared message's units are the same objects in both bodies.
    const unitOfShared = (body: unknown) => units(body).find((unit) => unit.messageIndex === sharedIndex);
    expect(unitOfShared(second.body)).toBe(unitOfShared(first.body));
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
