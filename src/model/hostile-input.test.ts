import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertRequest } from '../providers/anthropic/convert-request.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { canonicalJson } from './canonical-json.js';
import { ValidationError } from './errors.js';
import { hashOf, sha256 } from './hash.js';
import type { JsonValue } from './json.js';
import { findJsonProblem, MAX_JSON_DEPTH } from './json-value-check.js';
import { DEFAULT_SIZE_LIMITS } from './limits.js';
import { propertyRuns } from './test-support/property-runs.js';
import { validateMessage, validateTools } from './validate.js';

/** A tool_use message around `input`, the way a harness appends a model's tool call. */
const toolCall = (input: unknown) => ({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'edit', input }] });

function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let current = root;
  for (let level = 0; level < depth; level++) {
    const next: Record<string, unknown> = {};
    current.a = next;
    current = next;
  }
  return root;
}

function refusal(action: () => unknown): ValidationError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

function session(system = 'You are terse.'): Session {
  return new Session({
    id: 'hostile-1',
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: system }], tools: [] },
  });
}

describe('hostile JSON in tool inputs and tool schemas', () => {
  it('refuses BigInt with a ValidationError naming the field (not a TypeError from JSON.stringify)', () => {
    const error = refusal(() => validateMessage(toolCall({ count: 10n }), 'messages[1]'));
    expect(error.path).toBe('messages[1].content[0].input.count');
    expect(error.message).toMatch(/BigInt/);
  });

  it('refuses circular input', () => {
    const input: Record<string, unknown> = { path: 'a.ts' };
    input.self = { back: input };
    const error = refusal(() => validateMessage(toolCall(input), 'messages[1]'));
    expect(error.path).toBe('messages[1].content[0].input.self.back');
    expect(error.message).toMatch(/circular/);
  });

  it('refuses input nested 100,000 deep without overflowing the stack, with a short path', () => {
    const error = refusal(() => validateMessage(toolCall(nested(100_000)), 'messages[1]'));
    expect(error.message).toMatch(new RegExp(`nested at most ${MAX_JSON_DEPTH} levels deep`));
    expect(error.message.length).toBeLessThan(300);
  });

  it('refuses a tool schema nested 100,000 deep', () => {
    const tool = { name: 'deep', description: 'd', inputSchema: { type: 'object', properties: nested(100_000) } };
    expect(() => validateTools([tool])).toThrow(ValidationError);
  });

  it('refuses class instances, functions, undefined and non-finite numbers', () => {
    for (const value of [new Date(0), new Map(), () => 1, undefined, Number.NaN, Number.POSITIVE_INFINITY, Symbol('s')]) {
      expect(() => validateMessage(toolCall({ value }), 'm')).toThrow(ValidationError);
    }
  });

  it('refuses shared references that would expand past the value count (a JSON bomb built from objects)', () => {
    let value: unknown = 'x';
    for (let level = 0; level < 40; level++) value = { left: value, right: value };
    expect(() => validateMessage(toolCall(value), 'm')).toThrow(/at most 1000000 JSON values/);
  });

  it('refuses tool input whose JSON is larger than the block limit', () => {
    const input = { parts: Array.from({ length: 20 }, () => 'x'.repeat(1_000)) };
    expect(() => validateMessage(toolCall(input), 'm', { ...DEFAULT_SIZE_LIMITS, maxBlockChars: 10_000 })).toThrow(
      /m\.content\[0\]\.input: expected at most 10000 characters of JSON/,
    );
  });

  it('keeps a "__proto__" key parsed from JSON as data, through validation to the wire body', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "path": "a.ts"}');
    const chat = session();
    chat.appendUserText('edit it');
    chat.append(toolCall(input) as never);
    chat.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'toolu_1', content: [{ type: 'text', text: 'done' }] }],
    });
    const stored = chat.history[1]?.content[0];
    expect(stored?.type === 'tool_use' && Object.keys(stored.input)).toEqual(['__proto__', 'path']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const { body } = convertRequest(assemble(chat, { now: 0 }));
    expect(JSON.stringify(body)).toContain('"input":{"__proto__":{"polluted":true},"path":"a.ts"}');
  });

  it('accepts every JSON value JSON.parse can produce, unchanged in canonical bytes (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const input = { value } as Record<string, JsonValue>;
        expect(findJsonProblem(input)).toBeNull();
        const parsed = validateMessage(toolCall(JSON.parse(JSON.stringify(input))), 'm');
        const block = parsed.content[0];
        expect(block?.type === 'tool_use' && canonicalJson(block.input)).toBe(canonicalJson(JSON.parse(JSON.stringify(input))));
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});

describe('hostile generation parameters', () => {
  it('refuses a BigInt or a cycle in a provider-specific parameter with a ValidationError', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const extra of [10n, cyclic]) {
      const error = refusal(
        () =>
          new Session({
            id: 'p',
            model: 'claude-sonnet-4-5',
            global: { system: [{ label: 'persona', text: 'Hi.' }] },
            params: { maxTokens: 100, providerExtra: extra } as never,
          }),
      );
      expect(error.path).toMatch(/^options\.params\.providerExtra/);
    }
  });
});

describe('size limits on system segments', () => {
  it('refuses a 50 MB system segment where it enters, naming it', () => {
    const error = refusal(() => session('x'.repeat(50_000_000)));
    expect(error.path).toBe('options.global.system[0].text');
    expect(error.message).toMatch(/at most 4000000 characters/);
  });

  it('refuses an oversized system segment in a serialised session', () => {
    const data = JSON.parse(JSON.stringify(session()));
    data.system[0].text = 'x'.repeat(DEFAULT_SIZE_LIMITS.maxBlockChars + 1);
    expect(() => Session.fromJSON(data)).toThrow(/session\.system\[0\]\.text: expected at most/);
  });
});

describe('hashing exact code units', () => {
  it('hashes lone surrogates apart ("A\\uD800" vs "A\\uDBFF") and keeps well-formed text on UTF-8', () => {
    expect(sha256('A\uD800')).not.toBe(sha256('A\uDBFF'));
    expect(sha256('A\uDC00')).not.toBe(sha256('A\uFFFD'));
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashOf({ type: 'text', text: 'A\uD800' })).not.toBe(hashOf({ type: 'text', text: 'A\uDBFF' }));
  });

  it('hashes a surrogate pair as its UTF-8 bytes and the same units reversed (two lone ones) apart from U+FFFD twice', () => {
    const utf8 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
    expect(sha256('A\uD83D\uDE00')).toBe(utf8('A\u{1F600}'));
    expect(sha256('A\uDE00\uD83D')).not.toBe(utf8('A\uFFFD\uFFFD'));
    expect(sha256('A\uDE00\uD83D')).not.toBe(sha256('A\uD83D\uDE00'));
  });

  it('gives distinct strings distinct hashes, surrogates included (property)', () => {
    const codeUnits = fc.array(fc.integer({ min: 0xd7f0, max: 0xe010 }), { maxLength: 4 });
    const text = codeUnits.map((units) => `A${String.fromCharCode(...units)}`);
    fc.assert(
      fc.property(text, text, (left, right) => {
        fc.pre(left !== right);
        expect(sha256(left)).not.toBe(sha256(right));
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});
