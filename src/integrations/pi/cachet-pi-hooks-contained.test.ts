import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import type { HookErrorContext } from '../shared/contained-hooks.js';
import { type CachetPiOptions, cachetPiHooks } from './cachet-pi-hooks.js';

const ANTHROPIC = { id: 'claude-sonnet-4-5', api: 'anthropic-messages', provider: 'anthropic' };

function hooksWith(options: Partial<CachetPiOptions> = {}) {
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  const errors: Array<{ error: Error; context: HookErrorContext }> = [];
  const hooks = cachetPiHooks({
    conversationId: 'pi-contained',
    bus,
    onError: (error, context) => errors.push({ error, context }),
    ...options,
  });
  return { hooks, events, errors };
}

const body = () => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  system: [{ type: 'text', text: 'You are terse.' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
});

describe('cachetPiHooks contained: never throws into pi, never publishes bad usage', () => {
  for (const [label, usage] of [
    ['-5 input', { input: -5, output: 1, cacheRead: 0, cacheWrite: 0 }],
    ['"x" output', { input: 1, output: 'x', cacheRead: 0, cacheWrite: 0 }],
    ['NaN cache read', { input: 1, output: 1, cacheRead: Number.NaN, cacheWrite: 0 }],
    ['a fraction', { input: 1.5, output: 1, cacheRead: 0, cacheWrite: 0 }],
    ['Infinity', { input: 1, output: 1, cacheRead: 0, cacheWrite: Number.POSITIVE_INFINITY }],
  ] as const) {
    it(`recordUsage rejects ${label}: null, reported, nothing published`, () => {
      const { hooks, events, errors } = hooksWith();
      hooks.onPayload(body(), ANTHROPIC);
      expect(hooks.recordUsage({ usage: usage as never })).toBeNull();
      expect(events.filter((event) => event.type === 'usage.recorded')).toHaveLength(0);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.context.where).toBe('pi.recordUsage');
      expect(errors[0]!.error.message).toMatch(/usage not recorded/);
    });
  }

  it('recordUsage without usage (or without a message) returns null and does not throw', () => {
    const { hooks, errors } = hooksWith();
    expect(hooks.recordUsage({} as never)).toBeNull();
    expect(hooks.recordUsage(undefined as never)).toBeNull();
    expect(hooks.recordUsage(null as never)).toBeNull();
    expect(errors).toHaveLength(3);
  });

  it('recordUsage publishes valid usage with a finite cost', () => {
    const { hooks, events, errors } = hooksWith();
    hooks.onPayload(body(), ANTHROPIC);
    const usage = hooks.recordUsage({ usage: { input: 10, output: 2, cacheRead: 100, cacheWrite: 0 } });
    expect(usage?.cacheReadTokens).toBe(100);
    const recorded = events.filter((event) => event.type === 'usage.recorded') as Array<CachetEvent<'usage.recorded'>>;
    expect(recorded).toHaveLength(1);
    expect(Number.isFinite(recorded[0]!.payload.costUsd)).toBe(true);
    expect(errors).toHaveLength(0);
  });

  it('onPayload(null), a string, an array or a missing model: returned as given, reported, no throw', () => {
    const { hooks, errors } = hooksWith();
    expect(hooks.onPayload(null, ANTHROPIC)).toBeNull();
    expect(hooks.onPayload('text', ANTHROPIC)).toBe('text');
    const list = [1, 2];
    expect(hooks.onPayload(list, ANTHROPIC)).toBe(list);
    const payload = body();
    expect(hooks.onPayload(payload, undefined as never)).toBe(payload);
    expect(errors.map((entry) => entry.context.where)).toEqual(['pi.onPayload', 'pi.onPayload', 'pi.onPayload', 'pi.onPayload']);
  });

  it('a payload whose messages are not a list is returned unchanged', () => {
    const { hooks, errors } = hooksWith();
    const odd = { model: 'claude-sonnet-4-5', messages: 'hello' };
    expect(hooks.onPayload(odd, ANTHROPIC)).toBe(odd);
    expect(errors).toHaveLength(1);
  });

  it('a tail that throws or returns a number: reported, the payload laid out without a tail', () => {
    for (const tail of [
      () => {
        throw new Error('no clock');
      },
      () => 7 as unknown as string,
    ]) {
      const { hooks, errors } = hooksWith({ tail });
      const out = hooks.onPayload(body(), ANTHROPIC) as ReturnType<typeof body>;
      expect(out.messages).toHaveLength(1);
      expect(out.messages[0]!.content.map((block) => block.text)).toEqual(['hello']);
      expect(errors.map((entry) => entry.context.where)).toEqual(['pi.tail']);
    }
  });

  it('an onBreak that throws does not reach pi', () => {
    let breaks = 0;
    const { hooks, errors } = hooksWith({
      onBreak: () => {
        breaks++;
        throw new Error('listener broke');
      },
    });
    const long = 'You are terse. '.repeat(400);
    const first = body();
    first.system[0]!.text = long;
    hooks.onPayload(first, ANTHROPIC);
    hooks.recordUsage({ usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 1500 } });
    const changed = body();
    changed.system[0]!.text = `Now: 10:00. ${long}`;
    expect(() => hooks.onPayload(changed, ANTHROPIC)).not.toThrow();
    expect(breaks).toBe(1);
    expect(errors.map((entry) => entry.context.where)).toEqual(['pi.onBreak']);
  });
});
