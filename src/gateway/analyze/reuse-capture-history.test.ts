import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, MAX_JSON_NODES } from '../../model/json-value-check.js';
import { parseCaptureLine, readCaptureLines } from './read-capture.js';
import { HistoryReuse } from './reuse-capture-history.js';

const limits = { maxNodes: MAX_JSON_NODES, maxDepth: MAX_JSON_DEPTH };
const message = (index: number, text = `m${index} ${'word '.repeat(index % 5)}`) => ({
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: [{ type: 'text', text }],
});
const history = (count: number) => Array.from({ length: count }, (_, index) => message(index));
const line = (conversation: string | null, messages: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    at: 1,
    ...(conversation ? { conversation } : {}),
    body: { model: 'claude-sonnet-5', max_tokens: 10, system: [{ type: 'text', text: 'sys' }], messages },
    ...extra,
  });

/** Values as `findJsonProblem` counts them, and the deepest container (the line is 0). */
function counts(value: unknown, depth = 0): { nodes: number; deepest: number } {
  if (typeof value !== 'object' || value === null) return { nodes: 1, deepest: -1 };
  let nodes = 1;
  let deepest = depth;
  for (const child of Object.values(value)) {
    const inner = counts(child, depth + 1);
    nodes += inner.nodes;
    deepest = Math.max(deepest, inner.deepest);
  }
  return { nodes, deepest };
}

function parseAll(lines: string[]) {
  const reuse = new HistoryReuse(limits);
  return lines.map((text) => ({ text, parsed: reuse.parse(Buffer.from(text)) }));
}

describe('HistoryReuse', () => {
  it('equals JSON.parse of each line, counts its values, and shares the repeated history items', () => {
    const lines = [
      line('a', history(1)),
      line('b', history(3)),
      line('a', history(3)),
      line('a', history(5)),
      line('b', history(2)), // shorter: a prefix of the kept list
      line('a', [...history(4), message(9, 'changed')]),
      line('a', [message(0, 'edited'), ...history(6).slice(1)]), // the first item differs: nothing reused
    ];
    const results = parseAll(lines);
    for (const { text, parsed } of results) {
      expect(parsed).not.toBeNull();
      expect(parsed!.json).toStrictEqual(JSON.parse(text));
      expect({ nodes: parsed!.nodes, deepest: parsed!.deepest }).toStrictEqual(counts(JSON.parse(text)));
    }
    const messagesOf = (at: number) => (results[at]!.parsed!.json as { body: { messages: unknown[] } }).body.messages;
    expect(messagesOf(2)[0]).toBe(messagesOf(0)[0]);
    expect(messagesOf(3).slice(0, 3)).toStrictEqual(messagesOf(2));
    expect(messagesOf(3)[2]).toBe(messagesOf(2)[2]);
    expect(messagesOf(4)[1]).toBe(messagesOf(1)[1]);
    expect(messagesOf(5)[3]).toBe(messagesOf(3)[3]);
    expect(messagesOf(5)[4]).not.toBe(messagesOf(3)[4]);
    expect(messagesOf(6)[1]).not.toBe(messagesOf(5)[1]);
    expect(Object.isFrozen(messagesOf(3)[4])).toBe(true);
    expect(Object.isFrozen((messagesOf(3)[4] as { content: object[] }).content[0])).toBe(true);
  });

  it('reuses every repeated item of a growing conversation, the kept bytes written in place between growths', () => {
    const lines = Array.from({ length: 16 }, (_, count) => line('g', history(count + 1)));
    const results = parseAll(lines);
    const messagesOf = (at: number) => (results[at]!.parsed!.json as { body: { messages: unknown[] } }).body.messages;
    for (let at = 1; at < lines.length; at++) {
      expect(messagesOf(at)).toStrictEqual(JSON.parse(lines[at]!).body.messages);
      for (let item = 0; item < at; item++) expect(messagesOf(at)[item]).toBe(messagesOf(at - 1)[item]);
    }
  });

  it('takes the system prompt and tools of the previous line when their bytes are the same, before or after the list', () => {
    const persona = [{ type: 'text', text: 'persona', cache_control: { type: 'ephemeral' } }];
    const tools = [{ name: 't', input_schema: { type: 'object', properties: { a: { type: 'string' } } } }];
    const withMembers = (system: unknown, toolList: unknown, count: number) =>
      JSON.stringify({ at: 1, conversation: 's', body: { model: 'm', system, messages: history(count), tools: toolList } });
    const lines = [
      withMembers(persona, tools, 1),
      withMembers(persona, tools, 3),
      withMembers([{ type: 'text', text: 'other' }], tools, 5), // the system prompt changed: parsed
      withMembers('a string', tools, 6),
      withMembers('a string', [], 7),
      withMembers('a string', [], 8).replace('"tools":[]', '"tools":[1e400]'), // Infinity: declined
    ];
    const results = parseAll(lines);
    for (const { text, parsed } of results.slice(0, -1)) {
      expect(JSON.stringify(parsed!.json)).toBe(JSON.stringify(JSON.parse(text))); // key order too
      expect({ nodes: parsed!.nodes, deepest: parsed!.deepest }).toStrictEqual(counts(JSON.parse(text)));
    }
    expect(results.at(-1)!.parsed).toBeNull();
    const bodyOf = (at: number) => (results[at]!.parsed!.json as { body: Record<string, unknown> }).body;
    expect(bodyOf(1).system).toBe(bodyOf(0).system);
    expect(bodyOf(1).tools).toBe(bodyOf(0).tools);
    expect(bodyOf(2).system).not.toBe(bodyOf(1).system);
    expect(bodyOf(2).tools).toBe(bodyOf(0).tools);
    expect(bodyOf(4).tools).not.toBe(bodyOf(3).tools);
    expect(
      Object.isFrozen((bodyOf(0).tools as Array<{ input_schema: { properties: object } }>)[0]!.input_schema.properties),
    ).toBe(true);
  });

  it('keys lines without a conversation by their first item, and reads `input` histories', () => {
    const responses = (count: number) =>
      JSON.stringify({ at: 2, body: { model: 'gpt-5', input: history(count).map((item) => ({ ...item, type: 'message' })) } });
    const results = parseAll([line(null, history(2)), responses(2), line(null, history(4)), responses(3)]);
    for (const { text, parsed } of results) expect(parsed!.json).toStrictEqual(JSON.parse(text));
    const itemsOf = (at: number, key: string) => (results[at]!.parsed!.json as { body: Record<string, unknown[]> }).body[key]!;
    expect(itemsOf(2, 'messages')[1]).toBe(itemsOf(0, 'messages')[1]);
    expect(itemsOf(3, 'input')[1]).toBe(itemsOf(1, 'input')[1]);
  });

  it('reads keys that share a length or a start with the usual ones as their own (no false match)', () => {
    const near = (count: number) =>
      JSON.stringify({
        at: 1,
        conversation: 'k',
        bodx: 1,
        body: { modem: 'x', mode: 'y', model: 'claude-sonnet-5', systen: [1], messagez: [2], messages: history(count), tool: 3 },
        u: 4,
      });
    const results = parseAll([near(2), near(3)]);
    for (const { text, parsed } of results) expect(parsed!.json).toStrictEqual(JSON.parse(text));
    const messagesOf = (at: number) => (results[at]!.parsed!.json as { body: { messages: unknown[] } }).body.messages;
    expect(messagesOf(1)[1]).toBe(messagesOf(0)[1]);
  });

  it('does not take an item whose bytes only begin like the kept one (a longer number)', () => {
    const results = parseAll([line('n', [1, 2]), line('n', [1, 23, 4])]);
    expect(results[1]!.parsed!.json).toStrictEqual(JSON.parse(results[1]!.text));
  });

  it('keeps escapes, whitespace, Unicode and numbers as JSON.parse reads them', () => {
    const odd = [
      line('e', history(3)),
      line('e', history(3)).replace('m0 ', 'm\\u0030 '),
      `  ${line('e', history(4)).replace('[{', '[ {').replace('}]', '} ]')}  `,
      line('e', [...history(4), { role: 'user', content: [{ type: 'text', text: 'é ✓ \ud83d\ude00' }], n: 7 }]).replace(
        '"n":7',
        '"n":1e300',
      ),
      line('e', history(5)).replace('"m1', '"\\"m1'),
      // Escaped quotes and backslashes inside and past the first 32 bytes of a string, a string ending in a backslash.
      line('e', [
        ...history(5),
        { role: 'user', content: [{ type: 'say "hi"', text: `${'x'.repeat(40)}"quoted" \\ end\\`, id: 'a\\' }] },
      ]),
    ];
    for (const { text, parsed } of parseAll(odd)) {
      expect(parsed).not.toBeNull();
      expect(parsed!.json).toStrictEqual(JSON.parse(text));
    }
  });

  it('leaves to the whole-line parse what it does not read: duplicate or escaped keys, invalid JSON, other shapes', () => {
    const kept = line('d', history(3));
    const declined = [
      line('d', history(3)).replace('"max_tokens":10', '"max_tokens":10,"messages":[]'), // a second history key
      `${line('d', history(3)).slice(0, -1)},"body":{}}`, // a second body
      line('d', history(3)).replace('"model"', '"mod\\u0065l"'),
      line('d', history(3)).replace(']}', ']]}'),
      line('d', 'not a list'),
      line('d', [...history(3), { role: 'user', content: [], n: 7 }]).replace('"n":7', '"n":1e400'), // Infinity: named by the whole-line parse
      line('d', [...history(3), 7]).replace(',7]', ',7"]'), // a fresh item that is not a value: a quote after a number
      line('d', [...history(3), true]).replace(',true]', ',tr"ue]'),
      '[1,2]',
      '',
      JSON.stringify({ at: 1, body: { model: 'x', messages: [[[[1]]]] } }).replace(
        '[[[[1]]]]',
        `${'['.repeat(300)}${']'.repeat(300)}`,
      ),
    ];
    const reuse = new HistoryReuse(limits);
    reuse.parse(Buffer.from(kept));
    for (const text of declined) expect(reuse.parse(Buffer.from(text))).toBeNull();
    expect(reuse.parse(Buffer.from(line('d', history(4))))!.json).toStrictEqual(JSON.parse(line('d', history(4))));
  });
});

describe('readCaptureLines with reuse', () => {
  it('gives each line what parseCaptureLine gives, and names the line of an error', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cachet-reuse-'));
    const file = join(directory, 'capture.jsonl');
    const lines = [
      line('a', history(2)),
      line('b', history(2), { usage: { input_tokens: 3 } }),
      '',
      line('a', history(4)),
      line('a', history(6)).replace('m1 ', 'm\\u0031 '),
      line('b', history(5), { provider: 'anthropic' }),
      line('a', history(7)),
    ];
    writeFileSync(file, `${lines.join('\n')}\r\n`);
    const read: unknown[] = [];
    for await (const { request, line: number } of readCaptureLines(file)) read.push([number, request]);
    expect(read).toStrictEqual(
      lines.flatMap((text, index) => (text === '' ? [] : [[index + 1, parseCaptureLine(text, index + 1, file)]])),
    );
    writeFileSync(file, [line('a', history(2)), line('a', history(3)).replace(']}', ']]}')].join('\n'));
    await expect(async () => {
      for await (const _ of readCaptureLines(file));
    }).rejects.toThrow(/capture\.jsonl:2: not valid JSON/);
  });
});
