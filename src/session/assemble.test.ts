import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import { ValidationError } from '../model/errors.js';
import { assemble } from './assemble.js';
import { Session } from './session.js';
import { currentTimeProvider, tailProvider } from './tail-provider.js';

function makeSession(bus?: EventBus) {
  let recall = 'recall-turn-1';
  const session = new Session({
    id: 's1',
    model: 'claude-sonnet-4-5',
    global: {
      tools: [
        {
          name: 'read_file',
          description: 'Read a file',
          inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
      system: [{ label: 'persona', text: 'You are a careful coding agent.' }],
    },
    sessionStatic: { system: [{ label: 'project', text: 'Project: demo. Session id s1.' }] },
    tail: [currentTimeProvider(), tailProvider('memory-recall', () => recall)],
    bus,
    clock: () => 1_700_000_000_000,
  });
  return { session, setRecall: (value: string) => (recall = value) };
}

describe('assemble', () => {
  it('keeps tail content out of messages and system', () => {
    const { session } = makeSession();
    session.appendUserText('hello');
    const request = assemble(session, { now: 1_700_000_000_000 });
    expect(request.messages).toHaveLength(1);
    expect(request.tail.items.map((item) => item.kind)).toEqual(['time', 'memory-recall']);
    expect(JSON.stringify(request.system)).not.toContain('recall-turn-1');
    expect(request.tail.inToolLoop).toBe(false);
  });

  it('marks a tool loop and rejects unanswered tool calls', () => {
    const { session } = makeSession();
    session.appendUserText('read a.ts');
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } }] });
    expect(() => assemble(session)).toThrow(ValidationError);
    session.append({ role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'x' }] }] });
    expect(assemble(session).tail.inToolLoop).toBe(true);
    // Tool results that come with new user text start a turn: the loop is over.
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'read_file', input: { path: 'b.ts' } }] });
    session.append({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 't2', content: [{ type: 'text', text: 'y' }] },
        { type: 'text', text: 'and fix the lint errors' },
      ],
    });
    expect(session.turn).toBe(2);
    expect(assemble(session).tail.inToolLoop).toBe(false);
  });

  it('leaves the session untouched when an append fails', () => {
    const { session } = makeSession();
    session.appendUserText('hi');
    const before = JSON.stringify(session.toJSON());
    expect(() => session.append({ role: 'assistant', content: [{ type: 'text', text: '' }] })).toThrowError(
      /messages\[1\]\.content\[0\]\.text: expected non-empty text/,
    );
    expect(JSON.stringify(session.toJSON())).toBe(before);
  });

  it('extends the prefix hash chain through history across turns', () => {
    const { session, setRecall } = makeSession();
    session.appendUserText('one');
    const first = assemble(session);
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'reply one' }] });
    setRecall('recall-turn-2');
    session.appendUserText('two');
    const second = assemble(session);
    const persistedFirst = first.blocks.filter((block) => block.zone !== 'tail');
    persistedFirst.forEach((block, index) => {
      expect(second.blocks[index]).toEqual(block);
    });
  });

  it('emits session.started and turn.started in order', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.onAny((event) => seen.push(event.type));
    const { session } = makeSession(bus);
    session.appendUserText('hi');
    expect(seen).toEqual(['session.started', 'turn.started']);
  });
});
