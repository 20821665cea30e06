import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../model/freeze.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';
import type { WireUnit } from './wire-unit.js';

type Block = Record<string, unknown>;
type Message = { role: 'user' | 'assistant'; content: readonly Block[] };
const message = (role: Message['role'], ...blocks: Block[]): Message => deepFreeze({ role, content: blocks });
const body = (messages: Message[]) => ({ model: 'claude-sonnet-4-5', max_tokens: 100, messages });
const marker = { type: 'ephemeral' };
const unitAt = (units: WireUnit[], path: string): WireUnit => units.find((unit) => unit.path === path)!;
/** What each body must normalise to: its JSON copy, read with nothing shared or frozen. */
const fresh = (value: unknown) => normalizeAnthropicBody(JSON.parse(JSON.stringify(value))).units;

/**
 * A client that keeps its marker on its newest message sends its previous last message again as a
 * new object without the marker. Its core (JSON text, counts) is the one the session's last body
 * computed at that index when the two blocks are the same JSON but for the marker, and computed
 * afresh otherwise.
 */
describe('the previous last message, sent again without its marker', () => {
  const opening = message('user', { type: 'text', text: 'Summarise the report.' });

  it('takes the core the last body computed for it (the same countable object), and equals its fresh copy', () => {
    const marked = message('assistant', { type: 'text', text: 'It says revenue grew.', cache_control: marker });
    const unmarked = message('assistant', { type: 'text', text: 'It says revenue grew.' });
    const next = message('user', { type: 'text', text: 'By how much?', cache_control: marker });
    const first = body([opening, marked]);
    const second = body([opening, unmarked, next]);
    const before = normalizeAnthropicBody(first).units;
    const after = normalizeAnthropicBody(second).units;
    expect(after).toEqual(fresh(second));
    const path = 'messages[1].content[0]';
    expect(unitAt(after, path).countable).toBe(unitAt(before, path).countable);
    expect(unitAt(after, path).breakpoint).toBeNull();
    expect(unitAt(before, path).breakpoint).toBe('5m');
  });

  it.each([
    ['other text', { type: 'text', text: 'It says revenue fell.' }],
    ['other key order', { text: 'It says revenue grew.', type: 'text' }],
    ['another key', { type: 'text', text: 'It says revenue grew.', citations: [] }],
  ])('computes the core afresh when the block differs (%s)', (_name, changed) => {
    const marked = message('assistant', { type: 'text', text: 'It says revenue grew.', cache_control: marker });
    const second = body([opening, message('assistant', changed), message('user', { type: 'text', text: 'Why?' })]);
    const before = normalizeAnthropicBody(body([opening, marked])).units;
    const after = normalizeAnthropicBody(second).units;
    expect(after).toEqual(fresh(second));
    expect(unitAt(after, 'messages[1].content[0]').countable).not.toBe(unitAt(before, 'messages[1].content[0]').countable);
  });

  it('does not take the core of a previous block that was not frozen (its caller may have edited it since)', () => {
    const block: Block = { type: 'text', text: 'It says revenue grew.', cache_control: marker };
    const first = body([opening, { role: 'assistant', content: [block] }]);
    normalizeAnthropicBody(first);
    block.text = 'It says revenue fell, sharply.';
    const second = body([opening, message('assistant', { type: 'text', text: 'It says revenue fell, sharply.' })]);
    expect(normalizeAnthropicBody(second).units).toEqual(fresh(second));
  });
});
