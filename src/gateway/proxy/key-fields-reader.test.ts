import { describe, expect, it } from 'vitest';
import type { OutgoingBody } from './body-pieces.js';
import { createBodySlabs, isLent } from './body-slabs.js';
import { conversationKey } from './conversation-key.js';
import { keptSharing } from './kept-body.js';
import { type KeyFields, keyFieldsOf, keyFieldsReader } from './key-fields.js';

const encode = (text: string) => Buffer.from(text);
const long = 'lorem ipsum dolor sit amet '.repeat(700); // every body of the conversation over 16 KB
const system = [{ type: 'text', text: long, cache_control: { type: 'ephemeral' } }];
const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });
const toolResult = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: long }] };

const opening = [user('first question'), assistant(long)];
const grown = [...opening, user('second'), assistant('answer'), toolResult];

/** One conversation's bodies as a client sends them, then edits, rewinds and hostile variants. */
const SEQUENCE: string[] = [
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: [user('first question')] }),
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: opening }),
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: grown }),
  // The same history, then a member after the list that changes the key.
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: grown, metadata: { user_id: 'u-7' } }),
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: [...grown, user('go on')], stream: true }),
  // The last message grown in place: the old stop falls inside its text.
  JSON.stringify({
    model: 'claude-sonnet-5',
    max_tokens: 1024,
    system,
    messages: [...grown, user(`go on ${long}`)],
    stream: true,
  }),
  // History edited in the middle, then rewound to the start.
  JSON.stringify({
    model: 'claude-sonnet-5',
    max_tokens: 1024,
    system,
    messages: [opening[0], assistant('edited'), ...grown.slice(2)],
  }),
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: opening }),
  // A second list after the first (the last one counts), a model after the list, trailing bytes.
  `${JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: grown }).slice(0, -1)},"messages":[{"role":"user","content":"other"}],"model":"m2"}`,
  `${JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: grown })}x`,
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: [...grown, 12] }),
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: [...grown, 123] }),
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: grown }),
  // Another conversation in between, the first one's again.
  JSON.stringify({ model: 'gpt-5', messages: [{ role: 'system', content: 's' }, user('other conversation'), assistant('a')] }),
  JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 1024, system, messages: [...grown, assistant('more')] }),
];

/** What a record stage reads of the fields: the key, the model and whether a turn opens. */
function readable(fields: KeyFields | null) {
  if (!fields) return null;
  return {
    key: conversationKey('anthropic', fields.keyBody, null),
    keyBody: JSON.stringify(fields.keyBody),
    model: fields.model,
    opensTurn: fields.opensTurn,
  };
}

describe('keyFieldsReader: a conversation scanned from where its last body ended', () => {
  it('gives what keyFieldsOf gives for every body of a conversation that grows, is edited, rewinds and breaks', () => {
    const reader = keyFieldsReader();
    for (const text of SEQUENCE) expect(readable(reader.read(encode(text)))).toEqual(readable(keyFieldsOf(encode(text))));
    // Grown from the last body: bodies 2 to 5, the duplicate list, the two numbered lists, the last body.
    expect(reader.resumed).toBeGreaterThanOrEqual(6);
  });

  it('scans whole again once the last body is gone, and for the same opening in another body', () => {
    const reader = keyFieldsReader();
    const first = encode(SEQUENCE[1]!);
    expect(readable(reader.read(first))).toEqual(readable(keyFieldsOf(first)));
    // Same opening, different bytes before the old stop: no resume, same answer as a whole scan.
    const other = encode(SEQUENCE[1]!.replace('"max_tokens":1024', '"max_tokens":2048'));
    expect(readable(reader.read(other))).toEqual(readable(keyFieldsOf(other)));
    expect(reader.resumed).toBe(0);
  });
});

describe('keyFieldsReader on lent bodies (reused memory, written over after each exchange)', () => {
  /** `text` in a slab when its size is lent, else in a buffer of its own; `done` gives the slab back. */
  const lend = (slabs: ReturnType<typeof createBodySlabs>, text: string) => {
    const lease = slabs.take(Buffer.byteLength(text));
    if (!lease) return { bytes: encode(text), done: () => {} };
    lease.bytes.write(text);
    return { bytes: lease.bytes, done: lease.hold() };
  };

  it('resumes against the kept copy, whatever the lent memory holds next', () => {
    const slabs = createBodySlabs();
    const reader = keyFieldsReader();
    let kept: OutgoingBody | undefined;
    let lent = 0;
    for (const text of SEQUENCE) {
      const { bytes, done } = lend(slabs, text);
      if (isLent(bytes)) lent++;
      expect(readable(reader.read(bytes))).toEqual(readable(keyFieldsOf(encode(text))));
      kept = keptSharing(kept, bytes);
      reader.kept(bytes, kept);
      done();
    }
    expect(lent).toBeGreaterThanOrEqual(8);
    expect(reader.resumed).toBeGreaterThanOrEqual(6);
  });

  it('never resumes against a lent body that was not kept (its memory now holds another body)', () => {
    const slabs = createBodySlabs();
    const reader = keyFieldsReader();
    const first = lend(slabs, SEQUENCE[4]!);
    reader.read(first.bytes);
    first.done();
    // The same slab, another body opening alike, as long, edited before the first one's stop.
    const edited = SEQUENCE[4]!.replace('"answer"', '"ANSWER"');
    expect(edited).not.toBe(SEQUENCE[4]);
    const second = lend(slabs, edited);
    expect(second.bytes.buffer).toBe(first.bytes.buffer);
    expect(readable(reader.read(second.bytes))).toEqual(readable(keyFieldsOf(encode(edited))));
    expect(reader.resumed).toBe(0);
  });
});
