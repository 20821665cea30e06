import { describe, expect, it } from 'vitest';
import { conversationKey } from './conversation-key.js';
import { keyFieldsOf } from './key-fields.js';
import { parseJsonRecord } from './receive-request.js';
import type { WireRoute } from './wire-route.js';

const encode = (text: string) => new TextEncoder().encode(text);
const long = 'lorem ipsum dolor sit amet '.repeat(400);

/** Bodies as clients send them, and a few a hostile one might. */
const BODIES: Array<[WireRoute, string]> = [
  [
    'anthropic',
    JSON.stringify({
      model: 'claude-sonnet-5',
      system: long,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: long },
      ],
    }),
  ],
  [
    'anthropic',
    JSON.stringify({ model: 'claude-sonnet-5', metadata: { user_id: 'u-1' }, messages: [{ role: 'user', content: 'hi' }] }),
  ],
  [
    'anthropic',
    '{"model":"a","model":"b","messages":[{"role":"user","content":"first"}],"messages":[{"role":"user","content":"second"}]}',
  ],
  ['anthropic', JSON.stringify({ model: 'claude-sonnet-5', system: [{ type: 'text', text: 'only a system' }], messages: [] })],
  [
    'openai-chat',
    JSON.stringify({
      model: 'gpt-5',
      messages: [
        { role: 'developer', content: 'rules' },
        { role: 'system', content: 's' },
        { role: 'user', content: [{ type: 'text', text: 'q', cache_control: { type: 'ephemeral' } }] },
      ],
    }),
  ],
  ['openai-chat', JSON.stringify({ model: 'gpt-5', prompt_cache_key: 'k-9', messages: [{ role: 'user', content: 'q' }] })],
  ['openai-chat', JSON.stringify({ model: 'gpt-5', messages: [{ role: 'system', content: 'all system' }] })],
  ['openai-responses', JSON.stringify({ model: 'gpt-5', instructions: long, input: 'a plain string input' })],
  [
    'openai-responses',
    JSON.stringify({
      model: 'gpt-5',
      instructions: 'i',
      input: [
        { role: 'developer', content: 'd' },
        { role: 'user', content: 'u' },
      ],
    }),
  ],
  ['openai-responses', JSON.stringify({ model: 12, instructions: 'no input at all' })],
  [
    'anthropic',
    '{ "model" : "claude-sonnet-5" ,\n "messages" : [ {"role":"user","content":"spaced \\"quoted\\" \\u00e9"} ] , "\\u006detadata": {"user_id": "escaped-key"} }',
  ],
];

describe('keyFieldsOf: the model and the conversation key without parsing the whole body', () => {
  it.each(BODIES)('gives the key and model the parsed body gives (%s)', (route, text) => {
    const whole = parseJsonRecord(encode(text))!;
    const fields = keyFieldsOf(encode(text))!;
    expect(fields).not.toBeNull();
    expect(conversationKey(route, fields.keyBody, null)).toEqual(conversationKey(route, whole, null));
    expect(fields.model).toBe(typeof whole.model === 'string' ? whole.model : '');
  });

  it('keeps the key for a first message with invalid UTF-8 (decoded the same way)', () => {
    const bytes = new Uint8Array([
      ...encode('{"model":"m","messages":[{"role":"user","content":"caf'),
      0xc3,
      0x28,
      ...encode('"}]}'),
    ]);
    expect(conversationKey('anthropic', keyFieldsOf(bytes)!.keyBody, null)).toEqual(
      conversationKey('anthropic', parseJsonRecord(bytes)!, null),
    );
  });

  it('parses only the opening items, not the history after them', () => {
    // A broken later message would fail a whole-body parse; the key never needs it.
    const fields = keyFieldsOf(
      encode('{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"\\x"}]}'),
    );
    expect(fields?.keyBody.messages).toEqual([{ role: 'user', content: 'a' }]);
  });

  it('is null for what it cannot span: not an object, not JSON, nested too deep', () => {
    expect(keyFieldsOf(encode('[1,2]'))).toBeNull();
    expect(keyFieldsOf(encode('{"model":'))).toBeNull();
    expect(keyFieldsOf(encode(`{"messages":${'['.repeat(600)}${']'.repeat(600)}}`))).toBeNull();
  });
});
