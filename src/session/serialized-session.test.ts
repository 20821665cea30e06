import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import type { Message } from '../model/content.js';
import { ValidationError } from '../model/errors.js';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { Session } from './session.js';

function base(): Session {
  return new Session({
    id: 'restore-me',
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: 'You are careful.' }] },
    sessionStatic: { system: [{ label: 'project', text: 'Project notes.' }] },
  });
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

function refusal(data: unknown): ValidationError {
  try {
    Session.fromJSON(data);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected fromJSON to refuse the data');
}

describe('Session.fromJSON uses the validation path of append', () => {
  it('refuses two user turns in a row, naming the message', () => {
    const data = { ...base().toJSON(), history: [user('one'), user('two')] };
    expect(refusal(data).path).toBe('session.history[1].role');
  });

  it('refuses a history that opens with the assistant', () => {
    const data = { ...base().toJSON(), history: [assistant('hello'), user('hi')] };
    expect(refusal(data).path).toBe('session.history[0].role');
  });

  it('refuses system zones out of order (a global segment after a session one)', () => {
    const data = base().toJSON();
    const reordered = { ...data, system: [...data.system].reverse() };
    expect(refusal(reordered).path).toBe('session.system[1].zone');
  });

  it('refuses static messages that leave a tool call unanswered, as the constructor does', () => {
    const data = {
      ...base().toJSON(),
      sessionMessages: [
        user('setup'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'lookup', input: {} }] },
      ],
    };
    expect(refusal(data).path).toMatch(/^session\.sessionMessages/);
  });

  it('accepts exactly the histories that append accepts (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<'user' | 'assistant'>('user', 'assistant'), { maxLength: 8 }), (roles) => {
        const messages = roles.map((role, index) => (role === 'user' ? user(`u${index}`) : assistant(`a${index}`)));
        const live = base();
        let appendError: ValidationError | null = null;
        for (const message of messages) {
          try {
            live.append(message);
          } catch (error) {
            appendError = error as ValidationError;
            break;
          }
        }
        let restoreError: ValidationError | null = null;
        try {
          Session.fromJSON({ ...base().toJSON(), history: messages });
        } catch (error) {
          restoreError = error as ValidationError;
        }
        expect(restoreError === null).toBe(appendError === null);
        if (appendError && restoreError) {
          expect(restoreError.path.replace('session.history', 'messages')).toBe(appendError.path);
          expect(restoreError.expected).toBe(appendError.expected);
        }
      }),
      { numRuns: propertyRuns(100) },
    );
  });
});

describe('Session.end', () => {
  it('emits session.ended once and lets the bus drop the session counter', () => {
    const bus = new EventBus();
    const types: string[] = [];
    bus.onAny((event) => types.push(event.type));
    const session = new Session({ id: 's', model: 'm', global: { system: [] }, bus });
    session.appendUserText('hi');
    expect(bus.trackedSessions).toBe(1);
    session.end();
    session.end();
    expect(types).toEqual(['session.started', 'turn.started', 'session.ended']);
    expect(bus.trackedSessions).toBe(0);
  });
});

describe('module structure', () => {
  it('serialized-session.ts does not import session.ts (no runtime cycle)', () => {
    const source = readFileSync(new URL('./serialized-session.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/from '\.\/session\.js'/);
  });
});
