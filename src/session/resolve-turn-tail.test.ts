import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import type { TailItem } from '../model/request.js';
import { charsPerTokenCounter } from '../providers/shared/chars-token-counter.js';
import { assemble } from './assemble.js';
import { ANTHROPIC_TAIL_PRICING, chooseTailScope } from './choose-tail-scope.js';
import { resolveTurnTail } from './resolve-turn-tail.js';
import { Session, type SessionExpectations } from './session.js';
import { currentTimeProvider, tailProvider } from './tail-provider.js';

const counter = charsPerTokenCounter();
const countTokens = (text: string) => counter.countText(text);

function makeSession(expectations: SessionExpectations = {}, scope?: TailItem['scope']) {
  let now = Date.UTC(2026, 10, 23, 10, 0, 0);
  const session = new Session({
    id: 'turn-tail',
    model: 'claude-sonnet-5',
    global: {
      tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }],
      system: [{ label: 'persona', text: 'You are a careful coding agent.' }],
    },
    tail: [
      { ...currentTimeProvider({ resolutionMs: 60_000 }), ...(scope ? { scope } : {}) },
      { ...tailProvider('memory-recall', () => 'The user prefers small commits.'), ...(scope ? { scope } : {}) },
    ],
    clock: () => now,
    expectations,
  });
  return { session, advance: (ms: number) => (now += ms) };
}

/** One request of the cycle as prepareRequest runs it: resolve the tail, assemble, count it. */
function request(session: Session) {
  const tail = resolveTurnTail(session, { countTokens, pricing: ANTHROPIC_TAIL_PRICING });
  const assembled = assemble(session, { resolvedTail: tail.items });
  session.noteRequest();
  return { tail, assembled };
}

function toolStep(session: Session, id: string) {
  session.append({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path: 'a.ts' } }] });
  session.append({ role: 'user', content: [{ type: 'tool_result', toolUseId: id, content: [{ type: 'text', text: 'file' }] }] });
}

describe('chooseTailScope', () => {
  it('persists for tool loops and re-sends for single replies or long remaining sessions', () => {
    const base = { tokens: 90, pricing: ANTHROPIC_TAIL_PRICING };
    expect(chooseTailScope({ ...base, expectedStepsPerTurn: 3, expectedRequestsAfterTurn: 8 }).scope).toBe('turn');
    expect(chooseTailScope({ ...base, expectedStepsPerTurn: 1, expectedRequestsAfterTurn: 0 }).scope).toBe('request');
    // 3 steps: request scope costs 3; turn scope 1.25 + 0.2 + 0.1 × 16 = 3.05.
    expect(chooseTailScope({ ...base, expectedStepsPerTurn: 3, expectedRequestsAfterTurn: 16 }).scope).toBe('request');
  });
});

describe('resolveTurnTail', () => {
  it('persists turn-scoped items once into the turn opening message; later steps read them from history', () => {
    const { session, advance } = makeSession({}, 'turn');
    session.appendUserText('fix the bug');
    const first = request(session);
    expect(first.tail.persisted.map((item) => item.kind)).toEqual(['time', 'memory-recall']);
    expect(first.assembled.tail.items).toEqual([]);
    const opening = session.history[0];
    expect(opening?.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual([
      'fix the bug',
      '[current time] 2026-11-23T10:00:00Z',
      'The user prefers small commits.',
    ]);
    const prefixAfterFirst = first.assembled.blocks.at(-1)?.prefixHash;

    toolStep(session, 'call-1');
    advance(90_000);
    const second = request(session);
    expect(second.assembled.tail.items).toEqual([]);
    // The first request's prefix is still a prefix of the second: nothing cached was rewritten.
    expect(second.assembled.blocks.map((block) => block.prefixHash)).toContain(prefixAfterFirst);
    expect(JSON.stringify(second.assembled.messages)).not.toContain('10:01');
  });

  it('keeps request-scoped items out of history', () => {
    const { session } = makeSession({}, 'request');
    session.appendUserText('hello');
    const first = request(session);
    expect(first.assembled.tail.items.map((item) => item.kind)).toEqual(['time', 'memory-recall']);
    expect(session.history[0]?.content).toHaveLength(1);
  });

  it('auto: request scope without expectations, turn scope once the turn shape favours it', () => {
    const single = makeSession();
    single.session.appendUserText('hello');
    expect(request(single.session).tail.decisions.map((decision) => decision.scope)).toEqual(['request', 'request']);

    const loop = makeSession({ stepsPerTurn: 4, requestsPerSession: 8 });
    loop.session.appendUserText('refactor');
    const first = request(loop.session);
    expect(first.tail.decisions.map((decision) => decision.scope)).toEqual(['turn', 'turn']);
    expect(first.tail.decisions[0]?.reason).toMatch(/cheaper than re-sending/);
  });

  it('falls back to request scope when the turn opening request went without the tail', () => {
    const { session } = makeSession({}, 'turn');
    session.appendUserText('hello');
    assemble(session);
    session.noteRequest();
    toolStep(session, 'call-1');
    const late = request(session);
    expect(late.tail.persisted).toEqual([]);
    expect(late.assembled.tail.items).toHaveLength(2);
  });

  it('survives a retry of the opening request without persisting twice', () => {
    const { session } = makeSession({}, 'turn');
    session.appendUserText('hello');
    resolveTurnTail(session, { countTokens, pricing: ANTHROPIC_TAIL_PRICING });
    const retry = resolveTurnTail(session, { countTokens, pricing: ANTHROPIC_TAIL_PRICING });
    expect(retry.items).toEqual([]);
    expect(session.history[0]?.content).toHaveLength(3);
  });
});

describe('deferred tools on the session', () => {
  const deferred = [{ name: 'publish_page', description: 'Publish a page', inputSchema: { type: 'object' } }];

  it('records loads from tool_result.toolReferences and round-trips through toJSON', () => {
    const session = new Session({ id: 'd', model: 'claude-sonnet-5', global: { system: [] }, deferredTools: deferred });
    session.appendUserText('publish it');
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: {} }] });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 't1', content: [], toolReferences: ['publish_page'] }],
    });
    expect(session.deferredTools?.loaded).toEqual(['publish_page']);
    expect(assemble(session).deferredTools).toEqual({ tools: deferred, loaded: ['publish_page'] });
    expect(assemble(session).tools).toEqual([]);
    expect(Session.fromJSON(JSON.parse(JSON.stringify(session))).deferredTools?.loaded).toEqual(['publish_page']);
  });

  it('rejects a reference to an undeclared tool, naming where', () => {
    const session = new Session({ id: 'd', model: 'claude-sonnet-5', global: { system: [] }, deferredTools: deferred });
    session.appendUserText('go');
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: {} }] });
    const bad = () =>
      session.append({
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 't1', content: [], toolReferences: ['nope'] }],
      });
    expect(bad).toThrow(ValidationError);
    expect(bad).toThrow(/messages\[2\]\.content\[0\]\.toolReferences\[0\]/);
    expect(session.history).toHaveLength(2);
  });
});
