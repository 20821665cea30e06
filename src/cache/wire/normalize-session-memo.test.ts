import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../model/freeze.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { unitsOf } from './body-units.js';
import { anthropicBreakpoints, unitTokenTotals } from './cache-rules.js';
import type { ChunkedList } from './chunked-list.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';
import { sharedUnitCount } from './shared-units.js';
import type { WireUnit } from './wire-unit.js';

type Content = readonly Record<string, unknown>[];
// Frozen all the way down, as a session's persisted messages are (a shallow freeze is not trusted).
const frozen = (...blocks: Record<string, unknown>[]): Content => deepFreeze(blocks);
type Body = { model: string; max_tokens: number; messages: Array<{ role: 'user' | 'assistant'; content: Content }> };
const body = (messages: Body['messages']): Body => ({ model: 'claude-sonnet-4-5', max_tokens: 100, messages });
/** The same body with nothing shared or frozen: what the memos must agree with. */
const copyOf = (value: Body) => JSON.parse(JSON.stringify(value)) as Body;

/**
 * A session's bodies send the same frozen content arrays at the same indexes, so normalisation
 * remembers each index's units per session (keyed by the first message's content). A later
 * body that changes an index — another array, another role, an image — must be read afresh.
 */
describe("a session's next body read by message index", () => {
  const first = frozen({ type: 'text', text: 'Summarise the report.' });
  const answer = frozen({ type: 'text', text: 'It says revenue grew.' });
  const image = frozen({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } });

  it('normalises each body as its unshared copy, when an index changes array, role or gains an image', () => {
    const bodies = [
      body([
        { role: 'user', content: first },
        { role: 'assistant', content: answer },
      ]),
      // Same array at index 1, other role.
      body([
        { role: 'user', content: first },
        { role: 'user', content: answer },
      ]),
      // Another array at index 1, with an image.
      body([
        { role: 'user', content: first },
        { role: 'user', content: image },
      ]),
      // Back to the first: the image is gone.
      body([
        { role: 'user', content: first },
        { role: 'assistant', content: answer },
      ]),
    ];
    for (const each of bodies) {
      const units = normalizeAnthropicBody(each).units;
      expect(units).toEqual(normalizeAnthropicBody(copyOf(each)).units);
    }
    const images = (each: Body) => normalizeAnthropicBody(each).units.find((unit) => unit.path === 'images')?.text;
    expect(images(bodies[2] as Body)).toBe('"present"');
    expect(images(bodies[3] as Body)).toBe('"absent"');
  });
});

/**
 * A session's next body copies the run of messages that repeat the last body in one go and
 * hands later passes the count of leading units the two share. Every body must still normalise
 * as its unshared copy, and every count handed on must be a true run of the same objects.
 */
describe("a session's repeated run of messages and the shared-units hand-off", () => {
  type Message = { role: 'user' | 'assistant'; content: Content };
  const text = (value: string, extra: Record<string, unknown> = {}) => frozen({ type: 'text', text: value, ...extra });
  const image = frozen({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } });
  const marked = frozen({ type: 'thinking', thinking: 'hm', signature: 's', cache_control: { type: 'ephemeral' } });
  const history: Message[] = [{ role: 'user', content: text('Start.') }];
  for (let index = 1; index < 12; index++) {
    history.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: text(`Message ${index}.`) });
  }
  const withTools = (value: Body, tools: unknown[]) => ({ ...value, tools });
  const tool = { name: 'read', description: 'Reads.', input_schema: { type: 'object' } };
  const bodies: Array<Body & { tools?: unknown[] }> = [
    body(history.slice(0, 3)),
    body(history.slice(0, 5)),
    // The marker moves: the last message is sent again as another array.
    body([...history.slice(0, 4), { role: 'user', content: text('Message 4.', { cache_control: { type: 'ephemeral' } }) }]),
    body(history.slice(0, 7)),
    // An image appears in an early message, then the history goes back to the plain one.
    body([...history.slice(0, 2), { role: 'user', content: image }, ...history.slice(3, 8)]),
    body([...history.slice(0, 2), { role: 'user', content: image }, ...history.slice(3, 9)]),
    body(history.slice(0, 9)),
    // A warning (a marker on a thinking block) in the history, kept by the next bodies.
    body([...history.slice(0, 9), { role: 'assistant', content: marked }]),
    body([...history.slice(0, 9), { role: 'assistant', content: marked }, ...history.slice(10, 11)]),
    // Tools change the units before the messages; then the body shrinks; then a role changes.
    withTools(body(history.slice(0, 11)), [tool]),
    withTools(body(history.slice(0, 6)), [tool]),
    withTools(body([...history.slice(0, 5), { role: 'user', content: history[5]!.content }, ...history.slice(6, 12)]), [tool]),
    withTools(body(history.slice(0, 12)), [tool]),
  ];

  it('normalises each body as its unshared copy and hands on only true runs of the same objects', () => {
    let previous: ChunkedList<WireUnit> | null = null;
    const handedOn: number[] = [];
    for (const each of bodies) {
      const normalized = normalizeAnthropicBody(each);
      const fresh = normalizeAnthropicBody(copyOf(each));
      expect(normalized.units).toEqual(fresh.units);
      expect(normalized.warnings).toEqual(fresh.warnings);
      // The same body judged again (a cache model and a break watch) is read as equal, at once.
      const again = normalizeAnthropicBody(each);
      expect(again.units).toEqual(fresh.units);
      expect(again.warnings).toEqual(fresh.warnings);
      expect(sharedUnitCount(unitsOf(again), unitsOf(normalized))).toBe(fresh.units.length);
      if (previous) {
        const units = unitsOf(normalized);
        const shared = sharedUnitCount(units, previous);
        for (let index = 0; index < shared; index++) expect(units.at(index)).toBe(previous.at(index));
        handedOn.push(shared);
      }
      previous = unitsOf(normalized);
    }
    // The hand-off is not empty: a body that only adds shares everything before what it adds.
    expect(handedOn[0]).toBe(normalizeAnthropicBody(copyOf(bodies[0]!)).units.length);
    expect(normalizeAnthropicBody(bodies[4]!).units.find((unit) => unit.path === 'images')?.text).toBe('"present"');
    expect(normalizeAnthropicBody(bodies[6]!).units.find((unit) => unit.path === 'images')?.text).toBe('"absent"');
  });

  it('gives the passes that start at the hand-off the same token totals and breakpoints as unshared copies', () => {
    // One counter for the session's bodies (its totals start where the hand-off says), one for the copies.
    const counter = anthropicEstimator();
    for (const each of bodies) {
      const normalized = normalizeAnthropicBody(each);
      const fresh = normalizeAnthropicBody(copyOf(each));
      expect(unitTokenTotals(normalized, counter).toArray()).toEqual(unitTokenTotals(fresh, anthropicEstimator()).toArray());
      expect(anthropicBreakpoints(normalized)).toEqual(anthropicBreakpoints(fresh));
    }
  });
});
