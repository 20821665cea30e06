import { describe, expect, it } from 'vitest';
import { assemble } from '../session/assemble.js';
import { EmptySessionForkError, forkRequest } from '../session/fork-request.js';
import { Session } from '../session/session.js';
import { demoSession } from '../session/test-support/demo-session.js';
import { providerEntry } from './registry.js';

/** One model per provider, each with its own cache rules (explicit markers or an automatic prefix). */
const MODELS = {
  anthropic: 'claude-sonnet-4-5',
  bedrock: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  openrouter: 'anthropic/claude-sonnet-4.5',
  'openai-chat': 'gpt-5.6',
  'openai-responses': 'gpt-5.2',
  'openai-compatible': 'qwen3-8b',
  gemini: 'gemini-2.5-flash',
  deepseek: 'deepseek-chat',
} as const;

/** Keys under which each wire carries a cache marker. */
const MARKER_KEYS = ['"cache_control":', '"cachePoint":', '"prompt_cache_breakpoint":'];
/** Providers whose wire carries explicit markers for these models. */
const MARKED = new Set<string>(['anthropic', 'bedrock', 'openrouter', 'openai-chat']);
const LAST_PERSISTED = 'LAST-PERSISTED-BLOCK';
const INSTRUCTION = 'Summarise the conversation above in one JSON object.';

/** The end (exclusive) of the last cache marker's value in a JSON text, or -1 when it has none. */
function endOfLastMarker(json: string): number {
  const at = Math.max(...MARKER_KEYS.map((key) => json.lastIndexOf(key) + (json.lastIndexOf(key) >= 0 ? key.length : 0)));
  if (at <= 0) return -1;
  if (json[at] !== '{') return json.indexOf(json[at] === '"' ? '"' : ',', at + 1) + 1;
  let depth = 0;
  for (let index = at; index < json.length; index++) {
    if (json[index] === '{') depth += 1;
    if (json[index] === '}') depth -= 1;
    if (depth === 0) return index + 1;
  }
  return -1;
}

function commonPrefixLength(first: string, second: string): number {
  let index = 0;
  while (index < first.length && first[index] === second[index]) index += 1;
  return index;
}

/** The demo session with a long history (every provider's minimum cacheable prefix cleared), ending as `ending` says. */
function parentSession(model: string, ending: 'assistant' | 'tool-results' | 'user-text'): Session {
  const session = demoSession({ recall: { text: 'recall: the build broke after the tsc upgrade' } });
  session.setModel(model);
  session.appendUserText(`Here is the log:\n${'error TS7006: Parameter implicitly has an any type.\n'.repeat(700)}`);
  if (ending === 'assistant') {
    session.append({ role: 'assistant', content: [{ type: 'text', text: `Found it. ${LAST_PERSISTED}` }] });
    return session;
  }
  session.append({
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_2', name: 'run_tests', input: { filter: 'build' } }],
  });
  if (ending === 'tool-results') {
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'toolu_2', content: [{ type: 'text', text: `1 failed ${LAST_PERSISTED}` }] }],
    });
    return session;
  }
  session.append({
    role: 'user',
    content: [{ type: 'tool_result', toolUseId: 'toolu_2', content: [{ type: 'text', text: '1 failed' }] }],
  });
  session.append({ role: 'assistant', content: [{ type: 'text', text: 'One test fails.' }] });
  session.appendUserText(`Fix it. ${LAST_PERSISTED}`);
  return session;
}

describe('forkRequest: the fork reuses the parent prefix byte for byte', () => {
  for (const [provider, model] of Object.entries(MODELS) as Array<[keyof typeof MODELS, string]>) {
    for (const ending of ['assistant', 'tool-results', 'user-text'] as const) {
      it(`${provider}: the fork's body equals the parent's next body up to the last breakpoint (history ends with ${ending})`, () => {
        const session = parentSession(model, ending);
        const { adapter } = providerEntry(provider);
        const parentBody = adapter.convertRequest(assemble(session)).body as Record<string, unknown>;
        const forkBody = adapter.convertRequest(forkRequest(session, { instruction: INSTRUCTION })).body as Record<
          string,
          unknown
        >;
        // Wire key order is not prefix order (Bedrock sends messages before system): every field
        // but the one that carries the instruction is byte-identical, and that one shares its bytes
        // up to and past the last persisted block.
        expect(Object.keys(forkBody)).toEqual(Object.keys(parentBody));
        const differing = Object.keys(forkBody).filter(
          (key) => JSON.stringify(forkBody[key]) !== JSON.stringify(parentBody[key]),
        );
        expect(differing).toHaveLength(1);
        const parent = JSON.stringify(parentBody[differing[0] as string]);
        const fork = JSON.stringify(forkBody[differing[0] as string]);
        const shared = commonPrefixLength(parent, fork);
        // The whole persisted prefix is shared, its last block included; the instruction comes after it.
        expect(shared).toBeGreaterThan(fork.lastIndexOf(LAST_PERSISTED) + LAST_PERSISTED.length);
        expect(fork.indexOf(INSTRUCTION)).toBeGreaterThanOrEqual(shared);
        expect(parent.includes(INSTRUCTION)).toBe(false);
        // Every marker the fork carries lies in the shared prefix: none after the instruction.
        const markerEnd = endOfLastMarker(fork);
        if (MARKED.has(provider)) expect(markerEnd).toBeGreaterThan(0);
        if (markerEnd >= 0) expect(markerEnd).toBeLessThanOrEqual(shared);
      });
    }
  }

  it('places the Anthropic history breakpoint on the last persisted block, as the parent does', () => {
    const session = parentSession('claude-sonnet-4-5', 'user-text');
    const { adapter } = providerEntry('anthropic');
    const parent = adapter.convertRequest(assemble(session)).metadata.breakpoints.map((breakpoint) => breakpoint.path);
    const fork = adapter.convertRequest(forkRequest(session, { instruction: INSTRUCTION })).metadata.breakpoints;
    expect(fork.map((breakpoint) => breakpoint.path)).toEqual(parent);
    expect(fork.some((breakpoint) => breakpoint.path.startsWith('tail'))).toBe(false);
  });

  it('does not change the session', () => {
    const session = parentSession('claude-sonnet-4-5', 'assistant');
    const before = JSON.stringify(session.toJSON());
    forkRequest(session, { instruction: INSTRUCTION, model: 'claude-haiku-4-5' });
    expect(JSON.stringify(session.toJSON())).toBe(before);
  });

  it('runs on another model when asked (the layout is kept; that model has no cache of it)', () => {
    const fork = forkRequest(parentSession('claude-sonnet-4-5', 'assistant'), {
      instruction: INSTRUCTION,
      model: 'claude-haiku-4-5',
    });
    expect(fork.model).toBe('claude-haiku-4-5');
  });

  it('refuses a fork of an empty session and an empty instruction, naming what', () => {
    const empty = new Session({ id: 'empty-1', model: 'claude-sonnet-4-5', global: { system: [{ label: 'p', text: 'Hi.' }] } });
    expect(() => forkRequest(empty, { instruction: INSTRUCTION })).toThrow(EmptySessionForkError);
    expect(() => forkRequest(empty, { instruction: INSTRUCTION })).toThrow(/empty-1/);
    const session = parentSession('claude-sonnet-4-5', 'assistant');
    expect(() => forkRequest(session, { instruction: '  ' })).toThrow(/fork options.instruction/);
    expect(() => forkRequest(session, { instruction: INSTRUCTION, model: '' })).toThrow(/fork options.model/);
  });
});
