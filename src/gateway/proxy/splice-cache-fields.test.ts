import { describe, expect, it } from 'vitest';
import { anthropicTurn, chatTurn } from '../test-support/sessions.js';
import { joinedBody } from './body-pieces.js';
import { jsonSpans, type ValueSpan } from './json-spans.js';
import { type PlanContext, planCacheFields } from './plan-cache-fields.js';
import { SPLICE_INDEX_DEPTH, spliceCacheFields } from './splice-cache-fields.js';
import type { WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const context: PlanContext = { conversationId: 'c1', previousResponseId: 'msg_1', previousBreakpointPosition: null };

function splice(route: WireRoute, text: string | Uint8Array, options = {}) {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  const parsed = JSON.parse(decoder.decode(bytes)) as JsonRecord;
  const planned = planCacheFields(route, parsed, context, options);
  const root = jsonSpans(bytes, SPLICE_INDEX_DEPTH) as ValueSpan;
  return { sent: joinedBody(spliceCacheFields(route, bytes, root, parsed, planned)), planned };
}

/** String system prompts and contents as one text block each, as the plan reads them. */
function asBlocks(body: JsonRecord): JsonRecord {
  const copy = structuredClone(body);
  if (typeof copy.system === 'string' && copy.system) copy.system = [{ type: 'text', text: copy.system }];
  for (const message of (copy.messages as JsonRecord[] | undefined) ?? []) {
    if (typeof message.content === 'string' && message.content) message.content = [{ type: 'text', text: message.content }];
  }
  return copy;
}

describe('spliceCacheFields: the plan edited into the client’s bytes', () => {
  it("keeps 1 hour on the plan's markers up to the client's last 1-hour marker, 5 minutes after it", () => {
    const body = structuredClone(anthropicTurn(3)) as unknown as {
      system: JsonRecord[];
      messages: Array<{ content: JsonRecord[] }>;
    };
    body.system[0]!.cache_control = { type: 'ephemeral', ttl: '1h' };
    const systemOnly = splice('anthropic', JSON.stringify(body));
    expect(JSON.parse(decoder.decode(systemOnly.sent))).toEqual(systemOnly.planned.body);
    const ttls = (planned: JsonRecord) => {
      const found: string[] = [];
      JSON.stringify(planned, (key, value) => {
        if (key === 'cache_control') found.push((value as { ttl?: string }).ttl ?? '5m');
        return value;
      });
      return found;
    };
    // tools, system: 1 hour (up to the client's 1-hour system marker); the history end: 5 minutes.
    expect(ttls(JSON.parse(decoder.decode(systemOnly.sent)))).toEqual(['1h', '1h', '5m']);
    body.messages.at(-1)!.content.at(-1)!.cache_control = { type: 'ephemeral', ttl: '1h' };
    const both = splice('anthropic', JSON.stringify(body));
    expect(ttls(JSON.parse(decoder.decode(both.sent)))).toEqual(['1h', '1h', '1h']);
    expect(ttls(JSON.parse(decoder.decode(splice('anthropic', JSON.stringify(anthropicTurn(3))).sent)))).toEqual([
      '5m',
      '5m',
      '5m',
    ]);
  });

  it('reads back as exactly the planned body (marked, unmarked, string system, pretty-printed)', () => {
    const bodies: JsonRecord[] = [
      anthropicTurn(1) as unknown as JsonRecord,
      anthropicTurn(12, { marked: false }) as unknown as JsonRecord,
      { ...(anthropicTurn(3) as unknown as JsonRecord), system: 'You are terse.', cache_control: { type: 'ephemeral' } },
      { model: 'claude-sonnet-5', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] },
      { model: 'claude-sonnet-5', max_tokens: 10, messages: [], diagnostics: null },
      // Client markers on early messages the plan does not mark: each message holding one is edited.
      {
        model: 'claude-sonnet-5',
        max_tokens: 10,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }] },
          { role: 'assistant', content: 'b' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'c' },
              { type: 'text', text: 'd', cache_control: { type: 'ephemeral' } },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'e', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
          { role: 'user', content: 'f' },
        ],
      },
    ];
    for (const body of bodies) {
      for (const text of [JSON.stringify(body), JSON.stringify(body, null, 2)]) {
        for (const options of [{}, { ttl: '1h' as const, diagnostics: false }]) {
          const { sent, planned } = splice('anthropic', text, options);
          expect(asBlocks(JSON.parse(decoder.decode(sent)) as JsonRecord)).toEqual(asBlocks(planned.body));
        }
      }
    }
  });

  it('keeps big integers, duplicate keys, escapes and whitespace byte for byte', () => {
    const input =
      '{"model":"claude-sonnet-5", "max_tokens":10,\n "messages":[{"role":"user","content":[' +
      '{"type":"tool_result","tool_use_id":"t1","content":"{\\"id\\": 12345678901234567890123}"},' +
      '{"type":"text","text":"dup \\u00e9 \\ud83d\\ude00","cache_control":{"type":"ephemeral"},"cache_control":{"type":"ephemeral"}}]}],' +
      '"metadata":{"user_id":"u","n":12345678901234567890123,"n":1.50}}';
    const { sent } = splice('anthropic', input);
    const text = decoder.decode(sent);
    expect(text).toContain('"content":"{\\"id\\": 12345678901234567890123}"');
    expect(text).toContain('"metadata":{"user_id":"u","n":12345678901234567890123,"n":1.50}');
    expect(text).toContain('"text":"dup \\u00e9 \\ud83d\\ude00"');
    expect(text.startsWith('{"model":"claude-sonnet-5", "max_tokens":10,\n "messages":[')).toBe(true);
    // The client's duplicate markers collapse to the plan's one.
    expect(text.match(/cache_control/g)).toHaveLength(1);
  });

  it('forwards bytes that are not UTF-8 untouched', () => {
    const head = encoder.encode('{"model":"claude-sonnet-5","max_tokens":10,"messages":[{"role":"user","content":"bad ');
    const tail = encoder.encode(' bytes"}]}');
    const input = new Uint8Array([...head, 0xff, 0xc3, 0x28, ...tail]);
    const { sent } = splice('anthropic', input);
    const at = [...sent].indexOf(0xff);
    expect([...sent.subarray(at, at + 3)]).toEqual([0xff, 0xc3, 0x28]);
    expect(decoder.decode(sent)).toContain('"content":[{"type":"text","text":"bad ');
  });

  it('OpenAI: adds prompt_cache_key and retention, nothing else changes', () => {
    const body = { ...(chatTurn(2) as unknown as JsonRecord), prompt_cache_key: undefined, seed: 1 };
    const text = JSON.stringify(body).replace('"seed":1', '"seed":12345678901234567890123');
    const { sent } = splice('openai-chat', text, { retention: '24h' });
    expect(decoder.decode(sent)).toBe(`${text.slice(0, -1)},"prompt_cache_key":"c1","prompt_cache_retention":"24h"}`);
    const keyed = '{"model":"gpt-4.1","prompt_cache_key":7,"messages":[]}';
    expect(decoder.decode(splice('openai-chat', keyed).sent)).toBe('{"model":"gpt-4.1","prompt_cache_key":"c1","messages":[]}');
  });
});
