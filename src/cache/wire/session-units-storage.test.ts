import { describe, expect, it } from 'vitest';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { createPrefixHasher, unitPrefixHashes } from '../models/unit-prefix.js';
import { unitsOf } from './body-units.js';
import { anthropicBreakpoints, unitTokenTotals } from './cache-rules.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';
import { sharedUnitCount } from './shared-units.js';

type Content = readonly Record<string, unknown>[];
type Message = { role: 'user' | 'assistant'; content: Content };
const frozen = (...blocks: Record<string, unknown>[]): Content => Object.freeze(blocks.map((block) => Object.freeze(block)));
const text = (value: string, extra: Record<string, unknown> = {}) => frozen({ type: 'text', text: value, ...extra });
const copyOf = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * A long session as the converter sends it: a frozen history of 1,400 messages (past many 64-unit
 * chunks) growing by a turn per body, the last message sent as a marked copy. Each body's units,
 * token totals and prefix hashes must share the storage of the history the previous body sent
 * (nothing copied per unit of history), and equal what its unshared JSON copy gives.
 */
describe("a long session's bodies share their history's storage", () => {
  const history: Message[] = Array.from({ length: 1400 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: text(`Message ${index} ${'word '.repeat(index % 7)}`),
  }));
  const bodyOf = (count: number) => ({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    messages: [
      ...history.slice(0, count - 1),
      { role: history[count - 1]!.role, content: text(`Message ${count - 1} marked`, { cache_control: { type: 'ephemeral' } }) },
    ],
  });
  const counts = [1200, 1202, 1204, 1206, 1206, 1300];

  it('units, counts and hashes equal the unshared copy and keep the previous body storage', () => {
    const counter = anthropicEstimator();
    const hasher = createPrefixHasher();
    let previous: {
      units: ReturnType<typeof unitsOf>;
      totals: ReturnType<typeof unitTokenTotals>;
      hashes: ReturnType<typeof hasher.hashes>;
    } | null = null;
    for (const count of counts) {
      const body = bodyOf(count);
      const normalized = normalizeAnthropicBody(body);
      const fresh = normalizeAnthropicBody(copyOf(body));
      expect(normalized.units).toEqual(fresh.units);
      expect(JSON.stringify(normalized)).toBe(JSON.stringify(fresh));
      const units = unitsOf(normalized);
      const totals = unitTokenTotals(normalized, counter);
      const hashes = hasher.hashes(normalized);
      expect(totals.toArray()).toEqual(unitTokenTotals(fresh, anthropicEstimator()).toArray());
      expect(hashes.toArray()).toEqual(unitPrefixHashes(fresh));
      expect(anthropicBreakpoints(normalized)).toEqual(anthropicBreakpoints(fresh));
      if (previous) {
        // The chunks wholly below the previous body's marked message: the very same storage (the
        // chunk where the two part is copied, 64 entries at most).
        for (const index of [0, 600, 1023]) {
          expect(units.sharesStorageAt(previous.units, index)).toBe(true);
          expect(totals.sharesStorageAt(previous.totals, index)).toBe(true);
          expect(hashes.sharesStorageAt(previous.hashes, index)).toBe(true);
        }
        expect(sharedUnitCount(units, previous.units)).toBeGreaterThanOrEqual(previous.units.length - 1);
      }
      previous = { units, totals, hashes };
    }
  });

  it('gives a body that edits its history units of its own from the edit on, the earlier bodies unchanged', () => {
    const before = normalizeAnthropicBody(bodyOf(1250));
    const beforeUnits = before.units.slice();
    const edited = bodyOf(1252);
    edited.messages[700] = { role: history[700]!.role, content: text('Edited.') };
    const after = normalizeAnthropicBody(edited);
    expect(after.units).toEqual(normalizeAnthropicBody(copyOf(edited)).units);
    expect(unitsOf(after).sharesStorageAt(unitsOf(before), 0)).toBe(true);
    // Six units before the messages, then one per message up to the edited one.
    expect(sharedUnitCount(unitsOf(after), unitsOf(before))).toBe(6 + 700);
    expect(before.units).toEqual(beforeUnits);
    expect(unitsOf(before).toArray()).toEqual(beforeUnits);
  });
});
