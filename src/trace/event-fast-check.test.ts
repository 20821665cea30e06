import { describe, expect, it } from 'vitest';
import { columnPayloadSchemas, validateEvent } from './event-columns.js';
import { FAST_CHECKED_TYPES, surelyValidEvent } from './event-fast-check.js';

const usage = {
  uncachedInputTokens: 20,
  cacheReadTokens: 12_000,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 2,
  reasoningTokens: 0,
  raw: null,
};
const envelope = { sessionId: 's', seq: 0, at: 1_700_000_000_000 };
const valid = [
  { ...envelope, type: 'session.started', payload: { model: 'm', provider: 'anthropic', globalPrefixHash: '' } },
  { ...envelope, type: 'proxy.forwarded', payload: { turn: 0, step: 0, model: 'm', provider: 'anthropic', plan: null } },
  { ...envelope, type: 'usage.recorded', payload: { turn: 1, step: 0, model: 'm', usage, costUsd: 0.01, uncachedCostUsd: 0.02 } },
  { ...envelope, type: 'cache.break', payload: { turn: 2, step: 0, cause: 'ttl-expired', missedTokens: 10 } },
  { ...envelope, type: 'warning.raised', payload: { source: 'proxy', message: 'x' } },
  { ...envelope, type: 'turn.started', payload: { turn: 3 } },
];

/** One field of a valid event replaced: each is refused by the schemas. */
const broken: Array<[string, Record<string, unknown>]> = [
  ['NaN at', { ...valid[0]!, at: Number.NaN }],
  ['fractional seq', { ...valid[0]!, seq: 1.5 }],
  ['seq past 2^53', { ...valid[0]!, seq: 2 ** 53 }],
  ['negative seq', { ...valid[0]!, seq: -1 }],
  ['empty session', { ...valid[0]!, sessionId: '' }],
  ['unknown type', { ...valid[0]!, type: 'nope' }],
  ['array payload', { ...valid[4]!, payload: [] }],
  ['empty model', { ...valid[0]!, payload: { model: '' } }],
  ['long label', { ...valid[0]!, payload: { model: 'm', client: 'x'.repeat(201) } }],
  ['negative oracle cost', { ...valid[0]!, payload: { model: 'm', oracleCostUsd: -1 } }],
  ['negative turn', { ...valid[1]!, payload: { ...valid[1]!.payload, turn: -1 } }],
  ['missing provider', { ...valid[1]!, payload: { turn: 0, step: 0, model: 'm' } }],
  ['NaN usage', { ...valid[2]!, payload: { ...valid[2]!.payload, usage: { ...usage, cacheReadTokens: Number.NaN } } }],
  ['usage as an array', { ...valid[2]!, payload: { ...valid[2]!.payload, usage: [] } }],
  ['infinite cost', { ...valid[2]!, payload: { ...valid[2]!.payload, costUsd: Number.POSITIVE_INFINITY } }],
  ['empty cause', { ...valid[3]!, payload: { turn: 2, step: 0, cause: '', missedTokens: 1 } }],
  ['string turn', { ...valid[5]!, payload: { turn: '3' } }],
];

describe('surelyValidEvent', () => {
  it('checks the payload of exactly the types validateEvent has a payload schema for', () => {
    expect([...FAST_CHECKED_TYPES].sort()).toEqual(Object.keys(columnPayloadSchemas).sort());
  });

  it('accepts well-formed events, which the schemas accept too', () => {
    for (const event of valid) {
      expect(surelyValidEvent(event)).toBe(true);
      expect(() => validateEvent(event)).not.toThrow();
    }
  });

  it('leaves unusual shapes to the schemas, which decide', () => {
    const unusual = { ...valid[4]!, payload: { constructor: 'x' } };
    expect(surelyValidEvent(unusual)).toBe(false);
    expect(validateEvent(unusual)).toBe(unusual);
  });

  it.each(broken)('never accepts what the schemas refuse: %s', (_, event) => {
    expect(surelyValidEvent(event)).toBe(false);
    expect(() => validateEvent(event)).toThrow(/^event\./);
  });
});
