import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../model/freeze.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import type { JsonRecord } from './json-helpers.js';
import { normalizedWithMovedMarkers } from './moved-markers.js';
import { normalizeWireBody } from './normalize-wire-body.js';
import type { NormalizedWireBody } from './wire-unit.js';

const FIVE = { type: 'ephemeral' };
const HOUR = { type: 'ephemeral', ttl: '1h' };

/** Every field and unit of a normalisation, key order included (what a report prints). */
const printed = (body: NormalizedWireBody) => JSON.stringify({ ...body, units: body.units });

/** What the derived normalisation must be: the planned body's JSON copy normalised with nothing shared. */
const fresh = (body: JsonRecord) => normalizeWireBody(JSON.parse(JSON.stringify(body)), 'anthropic');

const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.constantFrom('', 'a', 'look at this', 'b'.repeat(40)) }),
  fc.record({ type: fc.constant('thinking'), thinking: fc.constantFrom('hmm', ''), signature: fc.constant('s') }),
  fc.record({
    type: fc.constant('tool_use'),
    id: fc.constant('t1'),
    name: fc.constant('read'),
    input: fc.constant({ path: 'x' }),
  }),
  fc.record({
    type: fc.constant('tool_result'),
    tool_use_id: fc.constant('t1'),
    content: fc.constantFrom<unknown>('done', [{ type: 'tool_reference', tool_name: 'late' }], [{ type: 'text', text: 'ok' }]),
  }),
);
const marked = fc
  .tuple(block, fc.constantFrom<unknown>(undefined, FIVE, HOUR))
  .map(([value, marker]) => (marker === undefined ? value : { ...value, cache_control: marker }));
const message = fc.record({
  role: fc.constantFrom('user', 'assistant'),
  content: fc.oneof(fc.constantFrom<unknown>('plain words'), fc.array(marked, { minLength: 1, maxLength: 3 })),
});
const tool = fc.record({
  name: fc.constantFrom('read', 'late', 'write'),
  input_schema: fc.constant({ type: 'object' }),
  defer_loading: fc.constantFrom<unknown>(undefined, true),
  cache_control: fc.constantFrom<unknown>(undefined, FIVE),
});
const clientBody = fc.record({
  model: fc.constant('claude-sonnet-4-5'),
  max_tokens: fc.constant(100),
  tools: fc.array(tool, { maxLength: 3 }),
  system: fc.oneof(fc.constant<unknown>('be brief'), fc.array(marked, { minLength: 1, maxLength: 2 })),
  messages: fc.array(message, { minLength: 1, maxLength: 5 }),
  cache_control: fc.constantFrom<unknown>(undefined, FIVE),
});

type Edit = { kind: 'mark' | 'unmark' | 'text' | 'stringToBlock' | 'field'; at: number; ttl: 'five' | 'hour' };
const edits = fc.array(
  fc.record({
    kind: fc.constantFrom<Edit['kind']>('mark', 'mark', 'unmark', 'unmark', 'text', 'stringToBlock', 'field'),
    at: fc.nat(40),
    ttl: fc.constantFrom<Edit['ttl']>('five', 'hour'),
  }),
  { maxLength: 5 },
);

/** A plan's body: the client's objects shared, an edited block copied with its list and message (as `planCacheFields` does). */
function planned(client: JsonRecord, changes: readonly Edit[]): JsonRecord {
  const body: JsonRecord = { ...client, diagnostics: { previous_message_id: null } };
  delete body.cache_control;
  for (const change of changes) {
    const lists: Array<[string, number | null]> = [
      ['tools', null],
      ['system', null],
    ];
    for (let index = 0; index < (body.messages as unknown[]).length; index++) lists.push(['messages', index]);
    const [zone, messageIndex] = lists[change.at % lists.length]!;
    if (change.kind === 'field') {
      body.max_tokens = 200;
      body.tool_choice = { type: 'auto' };
      continue;
    }
    let holder: JsonRecord = body;
    let key = zone;
    if (messageIndex !== null) {
      const messages = [...(body.messages as unknown[])];
      body.messages = messages;
      holder = { ...(messages[messageIndex] as JsonRecord) };
      messages[messageIndex] = holder;
      key = 'content';
    }
    const list = holder[key];
    if (!Array.isArray(list)) {
      if (change.kind === 'stringToBlock' && typeof list === 'string') holder[key] = [{ type: 'text', text: list }];
      continue;
    }
    if (list.length === 0) continue;
    const copy = [...list];
    holder[key] = copy;
    const index = change.at % copy.length;
    const edited: JsonRecord = { ...(copy[index] as JsonRecord) };
    if (change.kind === 'mark') edited.cache_control = change.ttl === 'hour' ? { ...HOUR } : { ...FIVE };
    else if (change.kind === 'unmark') delete edited.cache_control;
    else if (change.kind === 'text') edited.text = `${String(edited.text)} changed`;
    copy[index] = edited;
  }
  return body;
}

describe('normalizedWithMovedMarkers', () => {
  it('equals the planned body normalised afresh whenever it answers (markers moved, fields, text and string edits)', () => {
    fc.assert(
      fc.property(clientBody, edits, fc.boolean(), (client, changes, frozen) => {
        const source = frozen ? deepFreeze(JSON.parse(JSON.stringify(client)) as JsonRecord) : (client as JsonRecord);
        const plan = planned(source, changes);
        const derived = normalizedWithMovedMarkers(normalizeWireBody(source, 'anthropic'), source, plan);
        if (derived !== null) expect(printed(derived)).toBe(printed(fresh(plan)));
        // Edits other than markers always fall back.
        if (changes.some((change) => change.kind === 'field')) expect(derived).toBeNull();
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  const client: JsonRecord = {
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    tools: [{ name: 'read', input_schema: { type: 'object' } }],
    system: [{ type: 'text', text: 'be brief', cache_control: FIVE }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
      { role: 'user', content: [{ type: 'text', text: 'next', cache_control: FIVE }] },
    ],
  };

  it.each([
    [
      'a marker moved to another message',
      [
        { kind: 'unmark', at: 4, ttl: 'five' },
        { kind: 'mark', at: 3, ttl: 'hour' },
      ],
    ],
    ['a marker placed on the last tool', [{ kind: 'mark', at: 0, ttl: 'five' }]],
    ['the system marker removed', [{ kind: 'unmark', at: 1, ttl: 'five' }]],
    ['nothing but diagnostics', []],
  ] as Array<[string, Edit[]]>)('answers for %s, equal to the fresh normalisation', (_name, changes) => {
    const plan = planned(client, changes);
    const derived = normalizedWithMovedMarkers(normalizeWireBody(client, 'anthropic'), client, plan);
    expect(derived).not.toBeNull();
    expect(printed(derived!)).toBe(printed(fresh(plan)));
  });

  it.each([
    ['a text changed', [{ kind: 'text', at: 2, ttl: 'five' }]],
    ['another field', [{ kind: 'field', at: 0, ttl: 'five' }]],
  ] as Array<[string, Edit[]]>)('falls back for %s', (_name, changes) => {
    const plan = planned(client, changes);
    expect(normalizedWithMovedMarkers(normalizeWireBody(client, 'anthropic'), client, plan)).toBeNull();
  });
});
