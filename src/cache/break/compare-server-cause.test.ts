import { describe, expect, it } from 'vitest';
import { anthropicRequest } from '../test-support/break-fixtures.js';
import { createBreakDetector } from './break-detector.js';
import { compareServerCause, summarizeCauseAgreement } from './compare-server-cause.js';

describe('compareServerCause', () => {
  it('matches the server levels to Cachet causes', () => {
    expect(compareServerCause('clock', { type: 'system_changed', missedTokens: 10 })).toBe('agree');
    expect(compareServerCause('tool-order', { type: 'tools_changed', missedTokens: 10 })).toBe('agree');
    expect(compareServerCause('history-edited', { type: 'system_changed', missedTokens: 10 })).toBe('disagree');
    expect(compareServerCause('clock', { type: 'previous_message_not_found', missedTokens: null })).toBe('no-diagnosis');
    expect(compareServerCause('clock', undefined)).toBe('no-diagnosis');
  });

  it('summarises agreement with the disagreeing pairs first by count', () => {
    const summary = summarizeCauseAgreement([
      { cause: 'clock', serverCause: { type: 'system_changed', missedTokens: 1 } },
      { cause: 'history-edited', serverCause: { type: 'tools_changed', missedTokens: 1 } },
      { cause: 'history-edited', serverCause: { type: 'tools_changed', missedTokens: 1 } },
      { cause: 'model-changed', serverCause: { type: 'system_changed', missedTokens: 1 } },
      { cause: 'ttl-expired' },
    ]);
    expect(summary).toMatchObject({ diagnosed: 4, agree: 1, disagree: 3, agreementRate: 0.25 });
    expect(summary.disagreements[0]).toEqual({ cause: 'history-edited', serverType: 'tools_changed', count: 2 });
  });
});

describe('break detector with server diagnostics', () => {
  const usage = (reason: { type: string; missedTokens: number | null } | null, cacheReadTokens = 0) => ({
    uncachedInputTokens: 10,
    cacheReadTokens,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 1,
    reasoningTokens: 0,
    raw: null,
    cacheMissReason: reason,
  });

  it("carries the server's cause beside Cachet's on cache.break", () => {
    const detector = createBreakDetector();
    detector.observe(anthropicRequest({ time: '2026-11-21T10:00:00Z' }), { at: 0 });
    const found = detector.observe(anthropicRequest({ time: '2026-11-21T10:01:00Z' }), {
      at: 60_000,
      usage: usage({ type: 'system_changed', missedTokens: 2000 }),
    });
    expect(found).toMatchObject({ cause: 'clock', serverCause: { type: 'system_changed', missedTokens: 2000 } });
  });

  it('records a miss only the server saw (usage shows a full read) as unknown, so the disagreement shows', () => {
    const detector = createBreakDetector();
    const body = anthropicRequest({});
    detector.observe(body, { at: 0 });
    const found = detector.observe(structuredClone(body), {
      at: 1000,
      usage: usage({ type: 'model_changed', missedTokens: 900 }, 1_000_000),
    });
    expect(found).toMatchObject({ cause: 'unknown', missedTokens: 900, serverCause: { type: 'model_changed' } });
    expect(detector.observe(structuredClone(body), { at: 2000, usage: usage(null, 1_000_000) })).toBeNull();
  });
});
