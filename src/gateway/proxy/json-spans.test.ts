import { describe, expect, it } from 'vitest';
import { indexSpan, jsonSpans, MAX_PLAN_DEPTH, type ValueSpan } from './json-spans.js';

const bytesOf = (text: string) => new TextEncoder().encode(text);
const textOf = (bytes: Uint8Array, span: ValueSpan) => new TextDecoder().decode(bytes.subarray(span.start, span.end));

describe('jsonSpans', () => {
  it('spans every value in the original bytes, duplicates and big numbers as written', () => {
    const text = '{ "a" : [1, {"b":2}] ,"n":12345678901234567890123, "a":"x\\"y\\\\", "e":{}, "l":[] }';
    const bytes = bytesOf(text);
    const root = jsonSpans(bytes, 3) as ValueSpan;
    expect(root.kind).toBe('object');
    expect(root.members!.map((member) => member.key)).toEqual(['a', 'n', 'a', 'e', 'l']);
    const [first, number, second, empty, list] = root.members!;
    expect(textOf(bytes, first!.value)).toBe('[1, {"b":2}]');
    expect(first!.value.items!.map((item) => textOf(bytes, item))).toEqual(['1', '{"b":2}']);
    expect(textOf(bytes, number!.value)).toBe('12345678901234567890123');
    expect(textOf(bytes, second!.value)).toBe('"x\\"y\\\\"');
    expect(empty!.value.members).toEqual([]);
    expect(list!.value.items).toEqual([]);
    expect(text.slice(second!.keyStart, second!.keyStart + 3)).toBe('"a"');
  });

  it('reads escaped keys as JSON readers do', () => {
    const root = jsonSpans(bytesOf('{"cache\\u005fcontrol":1}'), 1) as ValueSpan;
    expect(root.members![0]!.key).toBe('cache_control');
  });

  it('keeps string bytes that are not UTF-8', () => {
    const bytes = new Uint8Array([...bytesOf('{"t":"'), 0xff, 0xfe, 0x22, 0x7d]);
    const root = jsonSpans(bytes, 1) as ValueSpan;
    expect([...bytes.subarray(root.members![0]!.value.start, root.members![0]!.value.end)]).toEqual([0x22, 0xff, 0xfe, 0x22]);
  });

  it('indexes only down to the asked depth, spanning deeper values whole', () => {
    const bytes = bytesOf('{"a":{"b":{"c":[1]}}}');
    const root = jsonSpans(bytes, 1) as ValueSpan;
    const a = root.members![0]!.value;
    expect(a.members![0]!.value.members).toBeUndefined();
    expect(textOf(bytes, a.members![0]!.value)).toBe('{"c":[1]}');
  });

  it("indexes a value below the depth later, in the body's offsets, as a deeper index would have", () => {
    const bytes = bytesOf('{"m":[ {"c":[{"t":"x","k":{"a":1}}]} , 2 ]}');
    const shallow = jsonSpans(bytes, 1) as ValueSpan;
    const deep = jsonSpans(bytes, 4) as ValueSpan;
    const item = shallow.members![0]!.value.items![0]!;
    expect(item.members).toBeUndefined();
    const indexed = indexSpan(bytes, item, 2);
    const expected = deep.members![0]!.value.items![0]!;
    expect(indexed.members![0]!.value.items![0]!.members).toEqual(expected.members![0]!.value.items![0]!.members);
    expect(indexed.members![0]!.value.items![0]!.members![1]!.value.members).toBeUndefined();
    expect(textOf(bytes, indexed.members![0]!.value.items![0]!.members![1]!.value)).toBe('{"a":1}');
    expect(indexSpan(bytes, shallow.members![0]!.value.items![1]!, 2)).toEqual({ kind: 'other', start: 39, end: 40 });
    expect(() => indexSpan(bytesOf('{"m":[}'), { kind: 'array', start: 5, end: 7 }, 1)).toThrow(/could not be indexed/);
  });

  it('refuses 100,000 levels of nesting without recursing, and names bodies that are not one object', () => {
    const deep = bytesOf(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(jsonSpans(deep, 4)).toBe('too-deep');
    const atLimit = bytesOf(`${'['.repeat(MAX_PLAN_DEPTH)}${']'.repeat(MAX_PLAN_DEPTH)}`);
    expect(jsonSpans(atLimit, 4)).toBe('not-an-object');
    expect(jsonSpans(bytesOf('{"a":'), 4)).toBe('not-json');
    expect(jsonSpans(bytesOf('{"a":1}{"b":2}'), 4)).toBe('not-json');
    expect(jsonSpans(bytesOf('{"a":"unterminated}'), 4)).toBe('not-json');
  });
});
