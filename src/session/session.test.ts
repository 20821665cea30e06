import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import { canonicalJson } from '../model/canonical-json.js';
import { ValidationError } from '../model/errors.js';
import type { JsonValue } from '../model/json.js';
import { assemble } from './assemble.js';
import { SESSION_FORMAT_VERSION, Session } from './session.js';
import { currentTimeProvider } from './tail-provider.js';
import { DEMO_NOW, demoSession } from './test-support/demo-session.js';

const bytesOf = (value: unknown) => canonicalJson(value as JsonValue);

function validationError(action: () => unknown): ValidationError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

describe('Session serialisation', () => {
  it('round-trips through JSON text with its format version, assembling the same bytes', () => {
    const session = demoSession();
    session.appendUserText('next question');
    const text = JSON.stringify(session);
    expect(JSON.parse(text).formatVersion).toBe(SESSION_FORMAT_VERSION);
    const restored = Session.fromJSON(JSON.parse(text), { tail: [currentTimeProvider()], clock: () => DEMO_NOW });
    expect(JSON.stringify(restored)).toBe(text);
    const original = assemble(session, { now: DEMO_NOW });
    const again = assemble(restored, { now: DEMO_NOW });
    // Same persisted zones, block for block; tail providers are behaviour and are passed again.
    expect(again.blocks.filter((block) => block.zone !== 'tail')).toEqual(
      original.blocks.filter((block) => block.zone !== 'tail'),
    );
    expect(bytesOf(again.messages)).toBe(bytesOf(original.messages));
    expect(restored.turn).toBe(session.turn);
  });

  it('keeps appending after a restore with correct pairing checks', () => {
    const restored = Session.fromJSON(JSON.parse(JSON.stringify(demoSession())));
    restored.appendUserText('more');
    expect(() => restored.append({ role: 'user', content: [{ type: 'text', text: 'twice' }] })).toThrow(ValidationError);
    expect(restored.history).toHaveLength(5);
  });

  it.each([
    [2, /format version 1/],
    [0, /format version 1/],
    ['1', /formatVersion/],
  ])('rejects format version %s', (version, pattern) => {
    const data = { ...JSON.parse(JSON.stringify(demoSession())), formatVersion: version };
    const error = validationError(() => Session.fromJSON(data));
    expect(error.path).toBe('session.formatVersion');
    expect(error.message).toMatch(pattern);
  });

  it('rejects a missing version and corrupt content with paths', () => {
    const good = JSON.parse(JSON.stringify(demoSession()));
    const { formatVersion: _dropped, ...withoutVersion } = good;
    expect(validationError(() => Session.fromJSON(withoutVersion)).path).toBe('session.formatVersion');
    const orphan = structuredClone(good);
    orphan.history[2].content[0].toolUseId = 'nope';
    expect(validationError(() => Session.fromJSON(orphan)).path).toBe('session.messages[4].content[0].toolUseId');
    const emptyText = structuredClone(good);
    emptyText.history[0].content[0].text = '';
    expect(validationError(() => Session.fromJSON(emptyText)).path).toBe('session.history[0].content[0].text');
    const tooManyGlobal = { ...structuredClone(good), globalToolCount: 9 };
    expect(validationError(() => Session.fromJSON(tooManyGlobal)).path).toBe('session.globalToolCount');
    expect(validationError(() => Session.fromJSON('not a session')).path).toBe('session');
  });
});

describe('Session.append', () => {
  const failures: Array<[string, unknown, RegExp]> = [
    ['an empty text block', { role: 'user', content: [{ type: 'text', text: '' }] }, /messages\[6\]\.content\[0\]\.text/],
    ['two assistant messages in a row', { role: 'assistant', content: [{ type: 'text', text: 'again' }] }, /messages\[6\]\.role/],
    [
      'an orphan tool_result',
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_404', content: [{ type: 'text', text: 'x' }] }] },
      /messages\[6\]\.content\[0\]\.toolUseId/,
    ],
    ['an unknown block type', { role: 'user', content: [{ type: 'video', url: 'x' }] }, /messages\[6\]\.content\[0\]/],
    ['not an object', 42, /messages\[6\]/],
  ];

  it.each(failures)('leaves the session exactly as it was after %s', (_label, message, path) => {
    const bus = new EventBus();
    const events: string[] = [];
    const session = demoSession({ bus });
    bus.onAny((event) => events.push(event.type));
    // The demo history ends with an assistant text reply; the next message is messages[6].
    const before = JSON.stringify(session);
    const beforeRequest = bytesOf(assemble(session, { now: DEMO_NOW }).blocks);
    expect(() => session.append(message as never)).toThrowError(path);
    expect(JSON.stringify(session)).toBe(before);
    expect(bytesOf(assemble(session, { now: DEMO_NOW }).blocks)).toBe(beforeRequest);
    expect(events).toEqual([]);
  });

  it('accepts the assistant reply that follows tool results (a tool loop continues)', () => {
    const session = demoSession();
    session.appendUserText('run them');
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'run_tests', input: {} }] });
    session.append({ role: 'user', content: [{ type: 'tool_result', toolUseId: 'a', content: [{ type: 'text', text: 'ok' }] }] });
    // This append once failed: the tool_result message was re-checked without its assistant message.
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'run_tests', input: {} }] });
    session.append({ role: 'user', content: [{ type: 'tool_result', toolUseId: 'b', content: [{ type: 'text', text: 'ok' }] }] });
    expect(session.history).toHaveLength(9);
    const reply = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'done' }] };
    session.append(reply);
    expect(session.history).toHaveLength(10);
    expect(session.history.at(-1)).toEqual(reply);
  });

  it('freezes appended messages so history cannot be edited in place', () => {
    const session = demoSession();
    const message = { role: 'user' as const, content: [{ type: 'text' as const, text: 'hello' }] };
    session.append(message);
    const stored = session.history.at(-1);
    expect(Object.isFrozen(stored)).toBe(true);
    expect(() => {
      (stored?.content[0] as { text: string }).text = 'edited';
    }).toThrow(TypeError);
  });

  it('counts turns only for user input, not for tool results', () => {
    const session = demoSession();
    expect(session.turn).toBe(1);
    session.appendUserText('second');
    expect(session.turn).toBe(2);
  });
});

describe('Session.discoverTools', () => {
  const grep = {
    name: 'grep',
    description: 'Search files',
    inputSchema: { type: 'object', properties: { pattern: { type: 'string' } } },
  };

  it('appends new tools after the global ones, ignores known names, keeps the global prefix', () => {
    const session = demoSession();
    const before = assemble(session, { now: DEMO_NOW });
    const added = session.discoverTools([grep, { ...grep, name: 'read_file' }]);
    expect(added.map((tool) => tool.name)).toEqual(['grep']);
    expect(session.tools.map((tool) => tool.name)).toEqual(['read_file', 'run_tests', 'grep']);
    const after = assemble(session, { now: DEMO_NOW });
    expect(after.layout.discoveredToolCount).toBe(1);
    expect(after.blocks[2]).toMatchObject({ zone: 'session', path: 'tools[2]' });
    expect(after.blocks.slice(0, 2)).toEqual(before.blocks.slice(0, 2));
    expect(session.discoverTools([grep])).toEqual([]);
  });

  it('validates discovered tools and changes nothing on failure', () => {
    const session = demoSession();
    const before = JSON.stringify(session);
    expect(validationError(() => session.discoverTools([grep, { ...grep }])).path).toBe('tools[1].name');
    expect(
      validationError(() => session.discoverTools([{ ...grep, name: 'bad', inputSchema: { type: 'object', required: 'x' } }]))
        .path,
    ).toMatch(/^tools\[0\]\.inputSchema/);
    expect(validationError(() => session.discoverTools('grep' as never)).path).toBe('tools');
    expect(JSON.stringify(session)).toBe(before);
  });
});

describe('Session.rewriteHistory', () => {
  const summary = [
    { role: 'user' as const, content: [{ type: 'text' as const, text: 'Summary of earlier work: build fixed.' }] },
    { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Noted.' }] },
  ];

  it('replaces history, emits history.rewritten and re-hashes', () => {
    const bus = new EventBus();
    const seen: Array<{ type: string; payload: unknown }> = [];
    const session = demoSession({ bus });
    bus.onAny((event) => seen.push({ type: event.type, payload: (event as { payload?: unknown }).payload }));
    const before = assemble(session, { now: DEMO_NOW });
    session.rewriteHistory(summary, 'compaction');
    const after = assemble(session, { now: DEMO_NOW });
    expect(after.layout.historyMessageCount).toBe(2);
    const staticCount = before.blocks.filter((block) => block.zone === 'global' || block.zone === 'session').length;
    expect(after.blocks.slice(0, staticCount)).toEqual(before.blocks.slice(0, staticCount));
    expect(after.blocks[staticCount]?.prefixHash).not.toBe(before.blocks[staticCount]?.prefixHash);
    expect(seen.map((event) => event.type)).toEqual(['history.rewritten']);
  });

  it.each([
    [
      'an orphan tool_result',
      [{ role: 'user', content: [{ type: 'tool_result', toolUseId: 'x', content: [{ type: 'text', text: 'r' }] }] }],
      /messages\[2\]\.content\[0\]\.toolUseId/,
    ],
    ['two user messages in a row', [summary[0], summary[0]], /messages\[3\]\.role/],
    ['an empty text', [{ role: 'user', content: [{ type: 'text', text: '' }] }], /messages\[2\]\.content\[0\]\.text/],
    ['a non-array', 'history', /^messages: expected an array/],
  ])('rejects %s and keeps the old history', (_label, messages, path) => {
    const session = demoSession();
    const before = JSON.stringify(session);
    expect(() => session.rewriteHistory(messages as never, 'compaction')).toThrowError(path);
    expect(JSON.stringify(session)).toBe(before);
  });
});

describe('Session construction', () => {
  it('validates generation parameters with paths, in options and in setParams', () => {
    expect(
      validationError(() => new Session({ id: 's', model: 'm', global: { system: [] }, params: { maxTokens: -1 } })).path,
    ).toBe('options.params.maxTokens');
    const session = demoSession();
    const before = JSON.stringify(session);
    expect(validationError(() => session.setParams({ temperature: 7 })).path).toBe('params.temperature');
    expect(validationError(() => session.setParams({ toolChoice: { type: 'tool' } as never })).path).toMatch(
      /^params\.toolChoice/,
    );
    expect(validationError(() => session.setParams({ thinking: { type: 'enabled', budgetTokens: 0 } })).path).toBe(
      'params.thinking.budgetTokens',
    );
    expect(JSON.stringify(session)).toBe(before);
    session.setParams({ temperature: 0.2, toolChoice: { type: 'tool', name: 'read_file' } });
    expect(session.params).toMatchObject({ maxTokens: 4096, temperature: 0.2, toolChoice: { type: 'tool', name: 'read_file' } });
  });

  it('validates options with paths', () => {
    expect(validationError(() => new Session({ id: '', model: 'm', global: { system: [] } })).path).toBe('options.id');
    expect(validationError(() => new Session({ id: 's', model: 'm', global: { system: [{ label: 'x', text: '' }] } })).path).toBe(
      'options.global.system[0].text',
    );
    expect(
      validationError(
        () =>
          new Session({
            id: 's',
            model: 'm',
            global: { system: [] },
            sessionStatic: { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }] },
          }),
      ).path,
    ).toBe('options.sessionStatic.messages[0]');
  });
});

describe('memoised block records', () => {
  /** Block records computed from scratch: a restored session has an empty memo. */
  const fresh = (session: Session) => assemble(Session.fromJSON(JSON.parse(JSON.stringify(session))), { now: DEMO_NOW }).blocks;
  const persisted = (session: Session) => assemble(session, { now: DEMO_NOW }).blocks.filter((block) => block.zone !== 'tail');

  it('match a fresh computation after appends, tool discovery and a history rewrite', () => {
    const session = demoSession();
    persisted(session);
    session.appendUserText('one');
    expect(persisted(session)).toEqual(fresh(session));
    session.discoverTools([{ name: 'grep', description: 'Search', inputSchema: { type: 'object' } }]);
    expect(persisted(session)).toEqual(fresh(session));
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'two' }] });
    expect(persisted(session)).toEqual(fresh(session));
    session.rewriteHistory([{ role: 'user', content: [{ type: 'text', text: 'summary' }] }], 'compaction');
    expect(persisted(session)).toEqual(fresh(session));
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'after rewrite' }] });
    session.appendUserText('three');
    expect(persisted(session)).toEqual(fresh(session));
  });
});
