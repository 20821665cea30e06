import { describe, expect, it } from 'vitest';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

type Content = readonly Record<string, unknown>[];
const frozen = (...blocks: Record<string, unknown>[]): Content => Object.freeze(blocks.map((block) => Object.freeze(block)));
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
