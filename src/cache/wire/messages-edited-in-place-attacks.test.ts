import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../model/freeze.js';
import { mulberry32 } from '../../model/mulberry32.js';
import { createAnthropicCacheModel } from '../models/anthropic-cache-model.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

/**
 * Normalisation remembers a session's last messages array to find the run a next body repeats.
 * A caller may edit its own array in place between requests (replace a message, or edit the
 * last array and then send a new one): the units must still be those of the body as sent now.
 */

const message = (role: 'user' | 'assistant', text: string) => deepFreeze({ role, content: [{ type: 'text', text }] });
const plainUnits = (body: unknown) => normalizeAnthropicBody(JSON.parse(JSON.stringify(body))).units;

function history(): unknown[] {
  return [
    message('user', 'start'),
    message('assistant', 'a1'),
    message('user', 'q2'),
    message('assistant', 'a2'),
    message('user', 'q3'),
  ];
}

describe("a session's messages array edited in place between bodies", () => {
  it('the same array with a message replaced is read as it is now', () => {
    const messages = history();
    const body = { model: 'claude-sonnet-4-5', max_tokens: 10, messages };
    normalizeAnthropicBody(body);
    messages[2] = message('user', 'EDITED q2');
    expect(normalizeAnthropicBody(body).units).toEqual(plainUnits(body));
  });

  it('the last array edited after it was sent, then a new array holding the edited message', () => {
    const messages = history();
    normalizeAnthropicBody({ model: 'claude-sonnet-4-5', max_tokens: 10, messages });
    messages[3] = message('assistant', 'EDITED a2');
    const next = { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [...messages, message('assistant', 'a3')] };
    expect(normalizeAnthropicBody(next).units).toEqual(plainUnits(next));
  });

  it('the same array with messages appended in place is read as it is now', () => {
    const messages = history();
    const body = { model: 'claude-sonnet-4-5', max_tokens: 10, messages };
    normalizeAnthropicBody(body);
    messages.push(message('assistant', 'a3'), message('user', 'q4'));
    expect(normalizeAnthropicBody(body).units).toEqual(plainUnits(body));
  });
});

/** The caller's array after one in-place edit: replace, append, drop from the end, swap, or remove from the middle. */
function editInPlace(random: () => number, messages: unknown[], tag: string): void {
  const roll = random();
  const role = (index: number) => (index % 2 === 0 ? 'user' : 'assistant');
  const at = 1 + Math.floor(random() * Math.max(1, messages.length - 1));
  if (roll < 0.4 || messages.length < 4) {
    const count = 1 + Math.floor(random() * 8);
    for (let index = 0; index < count; index++) messages.push(message(role(messages.length), `${tag}.${index}`));
  } else if (roll < 0.6) messages[Math.min(at, messages.length - 1)] = message(role(at), `${tag} edited`);
  else if (roll < 0.7) messages.length -= 1 + Math.floor(random() * 3);
  else if (roll < 0.8 && at + 1 < messages.length) [messages[at], messages[at + 1]] = [messages[at + 1], messages[at]];
  else messages.splice(Math.min(at, messages.length - 1), 1);
}

describe('seeded in-place edits against plain copies', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: every body's units and verdict are those of its JSON copy`, () => {
      const random = mulberry32(seed);
      let messages = history();
      const judge = createAnthropicCacheModel();
      const plainJudge = createAnthropicCacheModel();
      for (let step = 0; step < 80; step++) {
        editInPlace(random, messages, `${seed}.${step}`);
        // Sometimes the caller sends a fresh array and goes on editing the one it sent before.
        const sent = random() < 0.3 ? messages.slice() : messages;
        const body = { model: 'claude-sonnet-4-5', max_tokens: 10, messages: sent };
        const copy = JSON.parse(JSON.stringify(body));
        expect(normalizeAnthropicBody(body).units, `step ${step}`).toEqual(normalizeAnthropicBody(copy).units);
        // The same body judged a second time, as a break watch beside the cache model does.
        expect(judge.judge(body, { at: step * 1_000 }), `step ${step}`).toEqual(plainJudge.judge(copy, { at: step * 1_000 }));
        if (sent !== messages && random() < 0.5) messages = sent;
      }
    });
  }
});
