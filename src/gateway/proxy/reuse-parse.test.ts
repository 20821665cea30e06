import { describe, expect, it } from 'vitest';
import { jsonSpans, type ValueSpan } from './json-spans.js';
import { type ParsedHistory, parseReusing } from './reuse-parse.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function parse(text: string | Uint8Array, previous: ParsedHistory | null) {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  return parseReusing(bytes, jsonSpans(bytes, 1) as ValueSpan, previous);
}

/** The same values as JSON.parse, in the same key order. */
function expectParsed(value: unknown, text: string) {
  expect(value).toEqual(JSON.parse(text));
  expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(text)));
}

const message = (index: number, text = `turn ${index}`) => ({
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: [{ type: 'text', text }],
});
const body = (messages: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'claude-sonnet-5', system: 'You are terse.', messages, ...extra });

describe('parseReusing: JSON.parse that keeps the repeated history', () => {
  it('equals JSON.parse and shares the repeated items with the previous body', () => {
    const history = Array.from({ length: 6 }, (_, index) => message(index));
    const first = parse(body(history), null);
    expect(first.body).toEqual(JSON.parse(body(history)));
    // The next request repeats the history and adds two messages (the system prompt grew too).
    const longer = body([...history, message(6), message(7)], { system: 'You are terse and exact.' });
    const second = parse(longer, first.history);
    expectParsed(second.body, longer);
    const items = (second.body as { messages: unknown[] }).messages;
    for (let index = 0; index < 6; index++) expect(items[index]).toBe(first.history!.items[index]);
    expect(items[6]).not.toBe(undefined);
  });

  it('stops sharing at the first item whose bytes differ, even at the same length', () => {
    const history = Array.from({ length: 9 }, (_, index) => message(index));
    const first = parse(body(history), null);
    const edited = history.map((item, index) => (index === 4 ? message(4, 'turn X') : item));
    const text = body(edited);
    const second = parse(text, first.history);
    expectParsed(second.body, text);
    const items = (second.body as { messages: unknown[] }).messages;
    for (let index = 0; index < 4; index++) expect(items[index]).toBe(first.history!.items[index]);
    for (let index = 4; index < 9; index++) expect(items[index]).not.toBe(first.history!.items[index]);
    expect((items[4] as { content: Array<{ text: string }> }).content[0]!.text).toBe('turn X');
  });

  it('keeps what JSON.parse keeps: the last of duplicate keys, whitespace, escapes, Responses input', () => {
    const cases = [
      '{"messages":[{"role":"user","content":"old"}],"model":"m","messages":[ {"role":"user","content":"a\\u00e9"} ,\n {"role":"assistant","content":"b"} ]}',
      '{"model":"m","input":[{"role":"user","content":"x"},{"type":"function_call_output","output":"{\\"n\\":12345678901234567890123}"}]}',
      '{"model":"m","input":"just text"}',
      '{"model":"m","messages":[],"n":1.50,"n":2}',
    ];
    for (const text of cases) {
      const first = parse(text, null);
      expectParsed(first.body, text);
      expectParsed(parse(text, first.history).body, text);
    }
    // Invalid UTF-8 in an item reads as JSON.parse of the decoded text reads it (U+FFFD).
    const bytes = new Uint8Array([...encoder.encode('{"messages":[{"t":"'), 0xff, ...encoder.encode('"}]}')]);
    expect(parse(bytes, null).body).toEqual(JSON.parse(decoder.decode(bytes)));
  });

  it('throws where JSON.parse throws, whatever it could reuse', () => {
    const history = [message(0), message(1)];
    const first = parse(body(history), null);
    const broken = `${body(history).slice(0, -2)},{"role":"user","content":[tru]}]}`;
    expect(() => JSON.parse(broken)).toThrow();
    expect(() => parse(broken, first.history)).toThrow();
  });

  it('keeps a body that is a view into a larger buffer as a copy of its own size', () => {
    const text = encoder.encode(body([message(0)]));
    const socketRead = new Uint8Array(text.byteLength + 100);
    socketRead.set(text, 10);
    const { history } = parse(socketRead.subarray(10, 10 + text.byteLength), null);
    expect((history!.bytes as Uint8Array).buffer.byteLength).toBe(text.byteLength);
    // A Buffer (what the proxy's node front reads) too: its own `slice` would be a view.
    const fromSocket = parse(Buffer.from(socketRead.buffer, 10, text.byteLength), null);
    expect((fromSocket.history!.bytes as Uint8Array).buffer.byteLength).toBe(text.byteLength);
  });

  it('takes bytes the span reader compared as equal, only for the same previous body and only within them', () => {
    const history = Array.from({ length: 6 }, (_, index) => message(index));
    const first = parse(body(history), null);
    const text = body([...history, message(6)]);
    const bytes = encoder.encode(text);
    const root = jsonSpans(bytes, 1) as ValueSpan;
    const items = root.members!.find((member) => member.key === 'messages')!.value.items!;
    // Honest claim: the same result, the six items reused.
    const honest = parseReusing(bytes, root, first.history, { body: first.history!.bytes, bytes: items[5]!.end });
    expectParsed(honest.body, text);
    expect(honest.reused).toBe(6);
    // A claim covering an item that differs is believed (the bytes are not compared again)...
    const edited = encoder.encode(body(history.map((item, index) => (index === 2 ? message(2, 'turn Y') : item))));
    const editedRoot = jsonSpans(edited, 1) as ValueSpan;
    const editedItems = editedRoot.members!.find((member) => member.key === 'messages')!.value.items!;
    const claim = { body: first.history!.bytes, bytes: editedItems[5]!.end };
    expect(parseReusing(edited, editedRoot, first.history, claim).reused).toBe(6);
    // ...but not when it names another body, nor past the bytes it covers.
    expect(
      parseReusing(edited, editedRoot, first.history, { ...claim, body: (first.history!.bytes as Uint8Array).slice() }).reused,
    ).toBe(2);
    expect(parseReusing(edited, editedRoot, first.history, { ...claim, bytes: editedItems[1]!.end }).reused).toBe(2);
    expect(parseReusing(edited, editedRoot, first.history, null).reused).toBe(2);
  });
});
