import { describe, expect, it } from 'vitest';
import { formatTokens } from '../models/cache-verdict.js';
import { BlockCoreMemo } from './block-core-memo.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

const body = (texts: string[], extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  tools: [{ name: 'read', description: 'Read a file', input_schema: { type: 'object', properties: {} } }],
  system: [{ type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } }],
  messages: texts.map((text, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text, ...(index === texts.length - 1 ? extra : {}) }],
  })),
});

describe('BlockCoreMemo: a conversation’s next body reuses what equal blocks gave', () => {
  it('gives the same units as normalising without it, for equal, changed, re-ordered and re-marked blocks', () => {
    const memo = new BlockCoreMemo();
    const bodies = [
      body(['hi', 'hello'], { cache_control: { type: 'ephemeral' } }),
      body(['hi', 'hello', 'more'], { cache_control: { type: 'ephemeral' } }),
      // The second message edited at the same position: its new text must be read.
      body(['hi', 'HELLO', 'more']),
      // Same text, keys in another order: different bytes on the wire.
      { ...body(['hi']), messages: [{ role: 'user', content: [{ text: 'hi', type: 'text' }] }] },
      // A tool_use whose nested input changes.
      {
        ...body([]),
        messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'read', input: { path: 'a' } }] }],
      },
      {
        ...body([]),
        messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'read', input: { path: 'b' } }] }],
      },
    ];
    for (const next of bodies) {
      const copy = JSON.parse(JSON.stringify(next));
      expect(normalizeAnthropicBody(copy, memo)).toEqual(normalizeAnthropicBody(JSON.parse(JSON.stringify(next))));
    }
  });

  it('shares the unit text of an equal block between successive bodies', () => {
    const memo = new BlockCoreMemo();
    const first = normalizeAnthropicBody(JSON.parse(JSON.stringify(body(['hi', 'hello']))), memo);
    const second = normalizeAnthropicBody(JSON.parse(JSON.stringify(body(['hi', 'hello', 'more']))), memo);
    const hello = (units: typeof first.units) => units.find((unit) => unit.path === 'messages[1].content[0]');
    expect(hello(second.units)?.text).toBe(hello(first.units)?.text);
    expect(hello(second.units)?.countable).toBe(hello(first.units)?.countable);
  });
});

describe('BlockCoreMemo: whole units and a reference memo', () => {
  const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));
  const unitAt = (units: ReturnType<typeof normalizeAnthropicBody>['units'], path: string) =>
    units.find((unit) => unit.path === path);

  it('hands back the previous unit object for an equal block with the same role and marker, and a new one otherwise', () => {
    const memo = new BlockCoreMemo();
    const first = normalizeAnthropicBody(copy(body(['hi', 'hello'], { cache_control: { type: 'ephemeral' } })), memo);
    const second = normalizeAnthropicBody(copy(body(['hi', 'hello', 'more'])), memo);
    expect(second).toEqual(normalizeAnthropicBody(copy(body(['hi', 'hello', 'more']))));
    expect(unitAt(second.units, 'messages[0].content[0]')).toBe(unitAt(first.units, 'messages[0].content[0]'));
    expect(unitAt(second.units, 'tools[0]')).toBe(unitAt(first.units, 'tools[0]'));
    expect(unitAt(second.units, 'system[0]')).toBe(unitAt(first.units, 'system[0]'));
    // Its marker is gone: a new unit without a breakpoint.
    expect(unitAt(first.units, 'messages[1].content[0]')?.breakpoint).toBe('5m');
    expect(unitAt(second.units, 'messages[1].content[0]')?.breakpoint).toBeNull();
    // The same block under another role: a new unit with that role.
    const swapped = copy(body(['hi', 'hello', 'more']));
    swapped.messages[0]!.role = 'assistant';
    const third = normalizeAnthropicBody(swapped, memo);
    expect(third).toEqual(normalizeAnthropicBody(copy(swapped)));
    expect(unitAt(third.units, 'messages[0].content[0]')?.role).toBe('assistant');
  });

  it('takes the cores of a reference memo’s equal blocks, and reads a copy that differs', () => {
    const source = new BlockCoreMemo();
    const copies = new BlockCoreMemo(source);
    const client = copy(body(['hi', 'hello'], { cache_control: { type: 'ephemeral' } }));
    const clientUnits = normalizeAnthropicBody(client, source).units;
    // A copy with markers moved, as a plan makes it, and one block edited.
    const planned = copy(client);
    delete (planned.system[0] as Record<string, unknown>).cache_control;
    (planned.tools[0] as Record<string, unknown>).cache_control = { type: 'ephemeral' };
    planned.messages[0]!.content[0]!.text = 'HI';
    const plannedUnits = normalizeAnthropicBody(planned, copies);
    expect(plannedUnits).toEqual(normalizeAnthropicBody(copy(planned)));
    // The same core (one text object) for the equal blocks, whatever their markers.
    expect(unitAt(plannedUnits.units, 'system[0]')?.countable).toBe(unitAt(clientUnits, 'system[0]')?.countable);
    expect(unitAt(plannedUnits.units, 'tools[0]')?.countable).toBe(unitAt(clientUnits, 'tools[0]')?.countable);
    expect(unitAt(plannedUnits.units, 'messages[0].content[0]')?.tokenText).toBe('HI');
  });
});

describe('formatTokens', () => {
  it('groups whole numbers as en-US does', () => {
    for (const value of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, -1, -1234, 9_007_199_254_740_991, -0, 1.5, 1234.5678]) {
      expect(formatTokens(value)).toBe(value.toLocaleString('en-US'));
    }
  });
});
