import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../model/mulberry32.js';
import { keyFieldsOf, keyFieldsReader } from './key-fields.js';

/**
 * Attacks on the pass-through's resumed key-field scan: seeded streams of large bodies (past the
 * 16 KB below which bodies are scanned whole) that share opening bytes, grow, rewind, are cut
 * short, carry junk or lax syntax inside a history item, or shrink below a remembered stop. Each
 * body read by one long-lived reader must give what a whole scan of it alone gives (`keyFieldsOf`),
 * null included.
 */

const PAD = 'p'.repeat(17_000);
const ITEMS = [
  `{"role":"user","content":"open ${PAD}"}`,
  `{"role":"assistant","content":[{"type":"text","text":"a ${PAD}"}]}`,
  `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"}]}`,
  '{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"n":1e400,"k":1,"k":2}}]}',
  '{"r\\u006fle":"user","content":"escaped key"}',
  '{"role":"user","role":"assistant","content":"repeated key"}',
  '{"role":"user","content":[{"type":"text","text":"lax inside: [1 2] {\\"a\\" 1}"}], "x": [1 2]}',
  '[1,2]',
  '"a string item"',
  `{"role":"developer","content":"sys ${PAD}"}`,
  `{"type":"function_call_output","call_id":"c","output":"${PAD}"}`,
];

/** A body of a conversation whose members before the list (`before`, ending in the list's key) stay the same. */
function bodyOf(random: () => number, before: string, opening: string, items: number[]): string {
  const after = random() < 0.3 ? ',"messages":"shadow"' : random() < 0.5 ? ',"system":"s","prompt_cache_key":"k"' : '';
  return `{${before}:[${[opening, ...items.map((item) => ITEMS[item]!)].join(random() < 0.2 ? ',\r\n' : ',')}]${after}}`;
}

/** A body's bytes after a hostile edit: cut short, junk appended, a byte flipped, or as it is. */
function hostile(random: () => number, text: string): Buffer {
  const bytes = Buffer.from(text);
  const roll = random();
  if (roll < 0.08) return bytes.subarray(0, Math.floor(random() * bytes.length));
  if (roll < 0.14) return Buffer.concat([bytes, Buffer.from(random() < 0.5 ? ' ' : '}')]);
  if (roll < 0.2) {
    const copy = Buffer.from(bytes);
    copy[Math.floor(random() * copy.length)] = [0x22, 0x5c, 0x5d, 0x7b, 0xff][Math.floor(random() * 5)]!;
    return copy;
  }
  return bytes;
}

const plainOf = (fields: ReturnType<typeof keyFieldsOf>) =>
  fields === null ? null : { model: fields.model, keyBody: JSON.stringify({ ...fields.keyBody }), opensTurn: fields.opensTurn };

describe('keyFieldsReader against a whole scan of each body (hostile streams)', () => {
  for (const seed of [11, 12, 13]) {
    it(`seed ${seed}: every body reads as keyFieldsOf reads it alone`, () => {
      const random = mulberry32(seed);
      const reader = keyFieldsReader();
      const openings = [ITEMS[0]!, ITEMS[9]!, ITEMS[0]!.replace('open', 'other')];
      const histories: number[][] = [[], [], []];
      // The third conversation opens with the first's bytes up to its list, then parts.
      const befores = ['"model":"m1","messages"', '"metadata":{"user_id":"u"},"model":"m2","input"', '"model":"m1","messages"'];
      let compared = 0;
      for (let step = 0; step < 150; step++) {
        const which = Math.floor(random() * 3);
        const history = histories[which]!;
        const roll = random();
        if (roll < 0.6 || history.length < 2) history.push(Math.floor(random() * ITEMS.length));
        else if (roll < 0.8) history.length = Math.floor(random() * history.length);
        else history[Math.floor(random() * history.length)] = Math.floor(random() * ITEMS.length);
        const bytes = hostile(random, bodyOf(random, befores[which]!, openings[which]!, history));
        expect(plainOf(reader.read(bytes)), `step ${step}`).toEqual(plainOf(keyFieldsOf(bytes)));
        compared++;
      }
      expect(compared).toBe(150);
      expect(reader.resumed).toBeGreaterThan(20);
    });
  }
});
