import { describe, expect, it } from 'vitest';
import { jsonSpans } from './json-spans.js';
import { planSpansReader } from './plan-spans.js';
import { SPLICE_INDEX_DEPTH } from './splice-cache-fields.js';

const encoder = new TextEncoder();
const filler = 'words of a long history '.repeat(40);
const message = (index: number, text = `turn ${index} ${filler}`) =>
  `{"role":"${index % 2 === 0 ? 'user' : 'assistant'}","content":[{"type":"text","text":"${text}"}]}`;
const history = (count: number, edit?: (index: number) => string | null) =>
  Array.from({ length: count }, (_, index) => edit?.(index) ?? message(index));
const bodyOf = (items: string[], options: { system?: string; before?: string; after?: string } = {}) =>
  encoder.encode(
    `{"model":"claude-sonnet-4-5",${options.before ?? ''}"system":"${options.system ?? 'Be exact.'}","messages":[${items.join(',')}]${options.after ?? ''}}`,
  );

describe('planSpansReader: the whole scan, resumed past the shared history', () => {
  it('gives jsonSpans’ result over appends, edits, rewinds, interleaved conversations and trailing members', () => {
    const reader = planSpansReader();
    const other = (count: number) => bodyOf(history(count), { system: 'Another agent.' });
    const bodies = [
      bodyOf(history(30)),
      bodyOf(history(32)),
      other(30),
      bodyOf(history(33)),
      other(31),
      // An edit in the middle, then appends after it.
      bodyOf(history(34, (index) => (index === 10 ? message(10, 'edited') : null))),
      bodyOf(history(36, (index) => (index === 10 ? message(10, 'edited') : null))),
      // A rewind to fewer messages, then the same opening with members after the list.
      bodyOf(history(20)),
      bodyOf(history(22), { after: ',"tools":[{"name":"f"}],"metadata":{"user_id":"u"}' }),
      bodyOf(history(23), { after: ',"tools":[{"name":"f"}],"metadata":{"user_id":"u"}' }),
      // Whitespace and a repeated list: the last one is what readers keep, the scan spans both.
      encoder.encode(`{"model":"m","messages":[${message(0)}], "messages" : [ ${history(25).join(' ,\n ')} ] }`),
      encoder.encode(`{"model":"m","messages":[${message(0)}], "messages" : [ ${history(26).join(' ,\n ')} ] }`),
      // The same bytes as the last body up to its last item, then something that is not JSON.
      encoder.encode(`{"model":"m","messages":[${message(0)}], "messages" : [ ${history(26).join(' ,\n ')} ,]`),
      bodyOf(history(37, (index) => (index === 10 ? message(10, 'edited') : null))),
      // A body that resumes, adds an item, then breaks; the next one resumes from the same last body.
      bodyOf(history(40)),
      encoder.encode(`{"model":"claude-sonnet-4-5","system":"Be exact.","messages":[${history(41).join(',')},{]}`),
      bodyOf(history(42)),
      // The last body's last message changed just before its end (a member added), then an append.
      bodyOf(history(43, (index) => (index === 41 ? `${message(41).slice(0, -1)},"x":1}` : null))),
    ];
    let claims = 0;
    for (const [index, bytes] of bodies.entries()) {
      expect(reader.read(bytes), `body ${index}`).toEqual(jsonSpans(bytes, SPLICE_INDEX_DEPTH));
      // What the reader says it compared is true: those bytes equal the earlier body's.
      const shared = reader.lastShared;
      if (shared === null) continue;
      // Bodies read here are never lent: the body remembered is the one read.
      if (!(shared.body instanceof Uint8Array)) throw new Error('a remembered body in pieces');
      claims++;
      expect(bodies.indexOf(shared.body as (typeof bodies)[number]), `body ${index}`).toBeLessThan(index);
      expect(Buffer.compare(bytes.subarray(0, shared.bytes), shared.body.subarray(0, shared.bytes)), `body ${index}`).toBe(0);
    }
    expect(claims).toBe(10);
    // Resumed: the appends (1, 3, 4, 6, 8, 9, 11, 16) and the broken bodies, which fail as the whole scan
    // does (12, 15); scanned whole: an edit or a rewind before the last body's end (5, 7, 13, 14, 17).
    expect(reader.resumed).toBe(10);
  });

  it('scans small bodies whole and keeps nothing for them', () => {
    const reader = planSpansReader();
    const small = bodyOf(history(2));
    expect(small.byteLength).toBeLessThan(16 * 1024);
    expect(reader.read(small)).toEqual(jsonSpans(small, SPLICE_INDEX_DEPTH));
    expect(reader.read(bodyOf(history(3)))).toEqual(jsonSpans(bodyOf(history(3)), SPLICE_INDEX_DEPTH));
    expect(reader.resumed).toBe(0);
  });
});
