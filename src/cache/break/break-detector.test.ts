import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { emptyUsage } from '../../model/usage.js';
import { createAnthropicCacheModel } from '../models/anthropic-cache-model.js';
import { anthropicHistory, anthropicRequest } from '../test-support/break-fixtures.js';
import { wordCounter, words } from '../test-support/fixtures.js';
import { attachBreakDetector, createBreakDetector } from './break-detector.js';

const MINUTE = 60_000;

function grow(count: number) {
  return anthropicRequest({ messages: anthropicHistory(count) });
}

describe('createBreakDetector', () => {
  it('stays quiet on a healthy append-only session', () => {
    const detector = createBreakDetector({ counter: wordCounter });
    expect(detector.observe(grow(1), { at: 0 })).toBeNull();
    expect(detector.observe(grow(3), { at: MINUTE })).toBeNull();
    expect(detector.observe(grow(5), { at: 2 * MINUTE, usage: { ...emptyUsage(), cacheReadTokens: 99_999 } })).toBeNull();
  });

  it('publishes cache.break on the session bus with location, cause and missed tokens', () => {
    const bus = new EventBus();
    const seen: Array<CachetEvent<'cache.break'>> = [];
    bus.on('cache.break', (event) => seen.push(event));
    const detector = createBreakDetector({ counter: wordCounter, bus, sessionId: 's1' });
    detector.observe(anthropicRequest({ time: '2026-11-21T10:00:00Z' }), { at: 0 });
    const found = detector.observe(anthropicRequest({ time: '2026-11-21T10:01:00Z' }), { at: MINUTE, turn: 2, step: 0 });
    expect(found).toMatchObject({ cause: 'clock', zone: 'system', path: 'system[1]', turn: 2 });
    // The lost part: system[1] and everything cached after it (the first user message).
    expect(found?.missedTokens).toBe(
      wordCounter.countText('Current time: 2026-11-21T10:00:00Z. Project: cachet.') +
        wordCounter.countText('Fix the failing test.'),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      type: 'cache.break',
      sessionId: 's1',
      at: MINUTE,
      payload: { cause: 'clock', path: 'system[1]' },
    });
    expect(seen[0]!.payload).not.toHaveProperty('explanation');
  });

  it('ttl-expired: a gap longer than the breakpoints’ TTL', () => {
    const detector = createBreakDetector({ counter: wordCounter });
    detector.observe(grow(1), { at: 0 });
    expect(detector.observe(grow(3), { at: 6 * MINUTE })).toMatchObject({ cause: 'ttl-expired', zone: null });
    const hourly = createBreakDetector({ counter: wordCounter });
    const withHour = (count: number) => {
      const body = grow(count) as { system: Array<Record<string, unknown>> };
      body.system[1]!.cache_control = { type: 'ephemeral', ttl: '1h' };
      return body;
    };
    hourly.observe(withHour(1), { at: 0 });
    expect(hourly.observe(withHour(3), { at: 6 * MINUTE })).toBeNull();
  });

  it('a session that never cleared the floor has lost nothing: reading nothing is not a break', () => {
    const detector = createBreakDetector({ counter: wordCounter });
    const small = (count: number) =>
      anthropicRequest({ model: 'claude-haiku-4-5', persona: 'Short persona.', messages: anthropicHistory(count) });
    detector.observe(small(1), { at: 0 });
    expect(detector.observe(small(3), { at: MINUTE })).toBeNull();
    expect(detector.observe(small(5), { at: 2 * MINUTE, usage: emptyUsage() })).toBeNull();
  });

  it('no-breakpoint: the shared prefix ran past the last breakpoint while a slot was free', () => {
    // Only the system prompt is marked: the shared history after it is re-billed every time.
    const systemOnly = (count: number) => anthropicRequest({ messages: anthropicHistory(count, false) });
    const model = createAnthropicCacheModel({ counter: wordCounter });
    model.judge(systemOnly(5), { at: 0 });
    const verdict = model.judge(systemOnly(7), { at: MINUTE });
    // The cache model says so too: it reads the system prompt only.
    expect(verdict.missCause).toBe('no-breakpoint');
    const detector = createBreakDetector({ counter: wordCounter });
    detector.observe(systemOnly(5), { at: 0 });
    const found = detector.observe(systemOnly(7), { at: MINUTE, usage: verdict.usage });
    expect(found).toMatchObject({ cause: 'no-breakpoint', zone: 'messages', path: 'messages[0].content[0]' });
    expect(found?.explanation).toMatch(/slot\(s\) were free/);
    // When even the covered part was not read, the missing marker is not the explanation.
    expect(detector.observe(systemOnly(9), { at: 2 * MINUTE, usage: emptyUsage() })?.cause).toBe('unknown');
  });

  it('compaction: a history rewrite announced by the caller is named as the deliberate rewrite', () => {
    const compacted = anthropicRequest({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Summary of earlier work.', cache_control: { type: 'ephemeral' } }] },
      ],
    });
    const plain = createBreakDetector({ counter: wordCounter });
    plain.observe(grow(5), { at: 0 });
    expect(plain.observe(compacted, { at: MINUTE })?.cause).toBe('history-edited');
    const told = createBreakDetector({ counter: wordCounter });
    told.observe(grow(5), { at: 0 });
    expect(told.observe(compacted, { at: MINUTE, historyRewritten: true })).toMatchObject({
      cause: 'compaction',
      zone: 'messages',
    });
  });

  it('route-changed: a miss when the reply names another upstream than the previous one', () => {
    const detector = createBreakDetector({ counter: wordCounter });
    detector.observe(grow(3), { at: 0, route: 'Anthropic' });
    const found = detector.observe(grow(5), { at: MINUTE, usage: emptyUsage(), route: 'Amazon Bedrock' });
    expect(found).toMatchObject({ cause: 'route-changed' });
    expect(found?.explanation).toMatch(/Amazon Bedrock/);
  });

  it('lookback-exceeded: the new breakpoint is 20 or more blocks past the last entry', () => {
    const detector = createBreakDetector({ counter: wordCounter });
    const only = (count: number) => {
      const body = grow(count) as { system: Array<Record<string, unknown>> };
      delete body.system[1]!.cache_control;
      return body;
    };
    detector.observe(only(1), { at: 0 });
    expect(detector.observe(only(20), { at: MINUTE })).toBeNull(); // 19 blocks further: still in the window
    expect(detector.observe(only(40), { at: 2 * MINUTE })).toMatchObject({
      cause: 'lookback-exceeded',
      path: 'messages[19].content[0]',
    });
  });

  it('lookback-exceeded also when an earlier breakpoint (the system one) is still read', () => {
    const detector = createBreakDetector({ counter: wordCounter });
    detector.observe(grow(1), { at: 0 });
    expect(detector.observe(grow(20), { at: MINUTE })).toBeNull();
    expect(detector.observe(grow(40), { at: 2 * MINUTE })).toMatchObject({
      cause: 'lookback-exceeded',
      path: 'messages[19].content[0]',
    });
  });

  it('template-rerender: a new user query makes Qwen3 drop the previous turn’s reasoning', () => {
    const detector = createBreakDetector({ format: 'openai-compatible', counter: wordCounter });
    const system = { role: 'system', content: words(200) };
    const first = [system, { role: 'user', content: 'make a page' }];
    detector.observe({ model: 'qwen3', messages: first }, { at: 0 });
    const found = detector.observe(
      {
        model: 'qwen3',
        messages: [
          ...first,
          { role: 'assistant', content: 'done', reasoning_content: 'plan the page first' },
          { role: 'user', content: 'add a footer' },
        ],
      },
      { at: MINUTE },
    );
    expect(found).toMatchObject({ cause: 'template-rerender', path: 'messages[2].reasoning_content' });
    expect(
      createBreakDetector({ format: 'openai-compatible', chatTemplate: 'other' }).observe(
        { model: 'q', messages: first },
        { at: 0 },
      ),
    ).toBeNull();
  });

  it('unknown: the provider read far less than was cached and nothing explains it', () => {
    const detector = createBreakDetector({ counter: wordCounter });
    detector.observe(grow(1), { at: 0 });
    expect(detector.observe(grow(3), { at: MINUTE, usage: { ...emptyUsage(), cacheReadTokens: 0 } })).toMatchObject({
      cause: 'unknown',
    });
  });

  it('model-changed, tools-changed and params-changed through observe', () => {
    for (const [next, cause] of [
      [anthropicRequest({ model: 'claude-opus-4-8' }), 'model-changed'],
      [anthropicRequest({ tools: [] }), 'tools-changed'],
      [anthropicRequest({ extra: { thinking: { type: 'enabled', budget_tokens: 4000 } } }), 'params-changed'],
    ] as const) {
      const detector = createBreakDetector({ counter: wordCounter });
      detector.observe(anthropicRequest({}), { at: 0 });
      expect(detector.observe(next, { at: MINUTE })?.cause).toBe(cause);
    }
  });

  it('ignores losses below OpenAI’s 128-token granularity', () => {
    const detector = createBreakDetector({ counter: wordCounter });
    const body = (tail: string) => ({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: words(2000) },
        { role: 'user', content: 'hi' },
        { role: 'user', content: tail },
      ],
    });
    detector.observe(body('note one'), { at: 0 });
    expect(detector.observe(body('note two'), { at: MINUTE })).toBeNull();
  });

  it('attaches to a session and publishes on its bus under its id', () => {
    const bus = new EventBus();
    const causes: string[] = [];
    bus.on('cache.break', (event) => causes.push(`${event.sessionId}:${event.payload.cause}`));
    const detector = attachBreakDetector({ id: 'chat-7', bus }, { counter: wordCounter });
    detector.observe(anthropicRequest({}), { at: 0 });
    detector.observe(anthropicRequest({ model: 'claude-opus-4-8' }), { at: MINUTE });
    expect(causes).toEqual(['chat-7:model-changed']);
  });
});
