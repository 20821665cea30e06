import { describe, expect, it } from 'vitest';
import type { Message, ToolDefinition } from './content.js';
import { ValidationError } from './errors.js';
import { DEFAULT_SIZE_LIMITS } from './limits.js';
import { validateMessage, validatePairing, validateTools } from './validate.js';

/** Run `action`, expect a ValidationError, and return it for assertions on path and message. */
function validationError(action: () => unknown): ValidationError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

const tool = (name: string, inputSchema: Record<string, unknown> = { type: 'object' }): ToolDefinition =>
  ({ name, description: `${name} tool`, inputSchema }) as ToolDefinition;

const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: {} }] });
const result = (...ids: string[]): Message => ({
  role: 'user',
  content: ids.map((id) => ({ type: 'tool_result' as const, toolUseId: id, content: [{ type: 'text' as const, text: 'ok' }] })),
});

describe('validatePairing', () => {
  it('accepts every tool_use answered once in the next user message', () => {
    expect(() => validatePairing([call('a'), result('a')], 'messages', { allowPendingAtEnd: false })).not.toThrow();
  });

  it('names the user message that misses a tool_result', () => {
    const error = validationError(() =>
      validatePairing(
        [
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'a', name: 'x', input: {} },
              { type: 'tool_use', id: 'b', name: 'x', input: {} },
            ],
          },
          result('a'),
        ],
        'messages',
      ),
    );
    expect(error.path).toBe('messages[1].content');
    expect(error.message).toContain('missing b');
  });

  it('names an orphan tool_result', () => {
    const error = validationError(() =>
      validatePairing([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, call('a'), result('a', 'zzz')]),
    );
    expect(error.path).toBe('messages[2].content[1].toolUseId');
    expect(error.message).toContain('orphan tool_result for zzz');
  });

  it('rejects a tool_result answering the same call twice', () => {
    const error = validationError(() => validatePairing([call('a'), result('a', 'a')]));
    expect(error.path).toBe('messages[1].content[1].toolUseId');
    expect(error.expected).toBe('exactly one tool_result per tool_use');
  });

  it('rejects repeated tool_use ids in one assistant message', () => {
    const error = validationError(() =>
      validatePairing([
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'a', name: 'x', input: {} },
            { type: 'tool_use', id: 'a', name: 'x', input: {} },
          ],
        },
      ]),
    );
    expect(error.path).toBe('messages[0].content[1].id');
  });

  it('rejects an assistant message while tool calls are unanswered', () => {
    const error = validationError(() =>
      validatePairing([call('a'), { role: 'assistant', content: [{ type: 'text', text: 'more' }] }]),
    );
    expect(error.path).toBe('messages[1]');
  });

  it('allows pending calls at the end only when asked, and offsets paths', () => {
    expect(() => validatePairing([call('a')], 'messages', { allowPendingAtEnd: true })).not.toThrow();
    const error = validationError(() => validatePairing([call('a')], 'messages', { allowPendingAtEnd: false, offset: 7 }));
    expect(error.path).toBe('messages[7]');
  });
});

describe('validateTools', () => {
  it('rejects duplicate names, naming the second declaration', () => {
    const error = validationError(() => validateTools([tool('read_file'), tool('grep'), tool('read_file')]));
    expect(error.path).toBe('tools[2].name');
    expect(error.expected).toBe('a unique tool name');
  });

  it('rejects a name already declared elsewhere', () => {
    const error = validationError(() => validateTools([tool('grep')], 'tools', DEFAULT_SIZE_LIMITS, new Set(['grep'])));
    expect(error.path).toBe('tools[0].name');
  });

  it('rejects names providers refuse and names over the length limit', () => {
    expect(validationError(() => validateTools([tool('read file')])).path).toBe('tools[0].name');
    const long = 'x'.repeat(DEFAULT_SIZE_LIMITS.maxToolNameLength + 1);
    expect(validationError(() => validateTools([tool(long)])).path).toBe('tools[0].name');
  });

  it('rejects an invalid JSON Schema with the path inside the schema', () => {
    const error = validationError(() =>
      validateTools([tool('grep', { type: 'object', properties: { pattern: { type: 'strung' } } })]),
    );
    expect(error.path).toMatch(/^tools\[0\]\.inputSchema/);
    expect(error.expected).toBe('a valid JSON Schema');
  });

  it('reads a tool schema in the dialect its $schema names (zod 4 writes draft 2020-12)', () => {
    const draft2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false };
    expect(validateTools([tool('grep', draft2020)])[0]?.inputSchema).toEqual(draft2020);
    expect(validateTools([tool('grep', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' })])).toHaveLength(1);
    const invalid2020 = { ...draft2020, properties: { pattern: { type: 'strung' } } };
    expect(validationError(() => validateTools([tool('grep', invalid2020)])).expected).toBe('a valid JSON Schema');
    const unknown = validationError(() => validateTools([tool('grep', { $schema: 'https://example.com/mine', type: 'object' })]));
    expect(unknown.path).toBe('tools[0].inputSchema.$schema');
  });

  it('requires an object schema for tool input', () => {
    const error = validationError(() => validateTools([tool('grep', { type: 'string' })]));
    expect(error.path).toBe('tools[0].inputSchema.type');
  });

  it('enforces the tool count limit', () => {
    const limits = { ...DEFAULT_SIZE_LIMITS, maxTools: 2 };
    const error = validationError(() => validateTools([tool('a'), tool('b'), tool('c')], 'tools', limits));
    expect(error.path).toBe('tools');
    expect(error.message).toContain('got 3');
  });

  it('rejects unknown keys and wrong types with their path', () => {
    expect(validationError(() => validateTools([{ ...tool('a'), extra: 1 }])).path).toBe('tools[0]');
    expect(validationError(() => validateTools([{ name: 'a', description: 3, inputSchema: { type: 'object' } }])).path).toBe(
      'tools[0].description',
    );
  });
});

describe('validateMessage', () => {
  it('rejects empty text blocks, also inside tool results', () => {
    expect(
      validationError(() => validateMessage({ role: 'user', content: [{ type: 'text', text: '' }] }, 'messages[3]')).path,
    ).toBe('messages[3].content[0].text');
    const nested = validationError(() =>
      validateMessage(
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 't', content: [{ type: 'text', text: '' }] }] },
        'messages[0]',
      ),
    );
    expect(nested.path).toBe('messages[0].content[0].content[0].text');
  });

  it('enforces size limits on text, media and block count', () => {
    const limits = { ...DEFAULT_SIZE_LIMITS, maxBlockChars: 10, maxMediaChars: 8, maxContentBlocksPerMessage: 2 };
    expect(
      validationError(() => validateMessage({ role: 'user', content: [{ type: 'text', text: 'x'.repeat(11) }] }, 'm', limits))
        .path,
    ).toBe('m.content[0].text');
    const image = { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'A'.repeat(9) } };
    expect(validationError(() => validateMessage({ role: 'user', content: [image] }, 'm', limits)).path).toBe(
      'm.content[0].source.data',
    );
    const three = [1, 2, 3].map((n) => ({ type: 'text', text: `t${n}` }));
    expect(validationError(() => validateMessage({ role: 'user', content: three }, 'm', limits)).path).toBe('m.content');
    const thinking = { type: 'thinking', thinking: 'y'.repeat(11) };
    expect(validationError(() => validateMessage({ role: 'assistant', content: [thinking] }, 'm', limits)).path).toBe(
      'm.content[0].thinking',
    );
  });

  it('rejects blocks a role cannot carry and unknown roles', () => {
    const toolUseFromUser = validationError(() =>
      validateMessage({ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'x', input: {} }] }, 'm'),
    );
    expect(toolUseFromUser.path).toMatch(/^m\.content\[0\]/);
    expect(validationError(() => validateMessage({ role: 'system', content: [{ type: 'text', text: 'x' }] }, 'm')).path).toMatch(
      /^m/,
    );
    expect(validationError(() => validateMessage({ role: 'user', content: [] }, 'm')).path).toBe('m.content');
  });

  it('returns the parsed message for valid input', () => {
    const message = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'text', text: 'ok' },
      ],
    };
    expect(validateMessage(message, 'm')).toEqual(message);
  });
});
