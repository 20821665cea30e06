import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { EventBus } from './event-bus.js';
import { MAX_PAYLOAD_DEPTH, validatePublishedEvent } from './validate-published-event.js';

const warning = (extra: Record<string, unknown>) => ({ source: 'test', message: 'm', ...extra });
/** Validate a `warning.raised` event whose payload carries `extra`. */
const validateWarning = (extra: Record<string, unknown>) =>
  validatePublishedEvent({ type: 'warning.raised', sessionId: 's', seq: 0, at: 0, payload: warning(extra) });

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let level = 0; level < depth; level += 1) value = { child: value };
  return value;
}

describe('validatePublishedEvent', () => {
  it('refuses a BigInt anywhere in the payload with a ValidationError naming the field', () => {
    const bus = new EventBus();
    const error = (() => {
      try {
        bus.emit('warning.raised', 's', 1, warning({ detail: { counts: [1, 2n] } }) as never);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe('event.payload.detail.counts[1]');
    expect((error as Error).message).toMatch(/BigInt/);
  });

  it('refuses a circular payload, and accepts the same object shared twice', () => {
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    expect(() => validateWarning({ cycle })).toThrow(
      /event\.payload\.cycle\.self: expected a JSON value without circular references/,
    );
    const shared = { same: 1 };
    expect(() => validateWarning({ a: shared, b: shared })).not.toThrow();
  });

  it('refuses a payload nested 100,000 deep without overflowing the stack', () => {
    expect(() => validateWarning({ deep: nested(100_000) })).toThrow(new RegExp(`at most ${MAX_PAYLOAD_DEPTH} levels`));
    expect(() => validateWarning({ deep: nested(50) })).not.toThrow();
  });

  it('keeps a sub-millisecond clock as it is and refuses a non-finite one', () => {
    const bus = new EventBus();
    const at = performance.timeOrigin + performance.now();
    expect(bus.emit('turn.started', 's', at, { turn: 1 }).at).toBe(at);
    expect(() => bus.emit('turn.started', 's', Number.NaN, { turn: 2 })).toThrow(ValidationError);
    expect(() => bus.emit('turn.started', '', 1, { turn: 2 })).toThrow(/event\.sessionId/);
  });

  it('publishes nothing and keeps seq gap-free when an event is refused', () => {
    const bus = new EventBus();
    const seen: number[] = [];
    bus.onAny((event) => seen.push(event.seq));
    bus.emit('turn.started', 's', 1, { turn: 1 });
    expect(() => bus.emit('turn.started', 's', 2, { turn: 10n } as never)).toThrow(ValidationError);
    bus.emit('turn.started', 's', 3, { turn: 2 });
    expect(seen).toEqual([0, 1]);
  });

  it('accepts any JSON value as payload content (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        validateWarning({ value });
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
