import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { anthropicTurn } from '../test-support/sessions.js';
import { analyzeCapture } from './analyze-capture.js';
import { CaptureError, parseCapture } from './read-capture.js';

const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const line = (at: number | string, body: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ at, body, ...extra });

describe('analyzeCapture', () => {
  it("prices a markerless client's session and what Cachet's plan would have cost", () => {
    const capture = parseCapture(
      [1, 2, 3, 4].map((turn) => line(T0 + turn * 30_000, anthropicTurn(turn, { marked: false }))).join('\n'),
    );
    const analysis = analyzeCapture(capture);
    expect(analysis.requests).toHaveLength(4);
    const [conversation] = analysis.conversations;
    expect(conversation!.readTokens).toBe(0);
    expect(conversation!.plannedReadShare).toBeGreaterThan(0.6);
    expect(conversation!.plannedCostUsd).toBeLessThan(conversation!.costUsd);
    expect(analysis.requests.every((request) => request.source === 'modelled')).toBe(true);
  });

  it('names the clock in the system prompt, the changed bytes, their cache impact and the advice', () => {
    const withTime = (turn: number, time: string) => {
      const body = anthropicTurn(turn);
      (body.system as Array<{ text: string }>)[0]!.text = `Now: ${time}. ${(body.system as Array<{ text: string }>)[0]!.text}`;
      return body;
    };
    const capture = parseCapture(
      [
        line('2026-11-23T10:00:00Z', withTime(1, '2026-11-23 10:00')),
        line('2026-11-23T10:01:00Z', withTime(2, '2026-11-23 10:01')),
        line('2026-11-23T10:02:00Z', withTime(3, '2026-11-23 10:01')),
      ].join('\n'),
    );
    const analysis = analyzeCapture(capture);
    const second = analysis.requests[1]!;
    expect(second.missCause).toBe('clock');
    expect(second.changed).toMatchObject({ zone: 'system', path: 'system[0]' });
    expect(second.changed!.cacheImpact).toBeGreaterThan(2000);
    expect(second.missedTokens).toBeGreaterThan(2000);
    expect(analysis.requests[2]!.missCause).toBeNull();
    expect(analysis.requests[2]!.readTokens).toBeGreaterThan(2000);
    expect(analysis.conversations[0]!.topCauses[0]).toMatchObject({
      cause: 'clock',
      count: 1,
      advice: expect.stringContaining('date/time'),
    });
  });

  it("reads the server's cause from captured Anthropic diagnostics and counts agreement per conversation", () => {
    const withTime = (turn: number, time: string) => {
      const body = anthropicTurn(turn);
      (body.system as Array<{ text: string }>)[0]!.text = `Now: ${time}. ${(body.system as Array<{ text: string }>)[0]!.text}`;
      return body;
    };
    const usage = (read: number) => ({
      input_tokens: 30,
      output_tokens: 5,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: 2900,
    });
    const reason = (type: string) => ({ cache_miss_reason: { type, cache_missed_input_tokens: 2800 } });
    const capture = parseCapture(
      [
        line('2026-11-23T10:00:00Z', withTime(1, '2026-11-23 10:00'), { usage: usage(0), diagnostics: null }),
        // The response's diagnostics beside the usage (the line's own field) ...
        line('2026-11-23T10:01:00Z', withTime(2, '2026-11-23 10:01'), { usage: usage(0), diagnostics: reason('system_changed') }),
        // ... or kept inside the usage object.
        line('2026-11-23T10:02:00Z', withTime(3, '2026-11-23 10:02'), {
          usage: { ...usage(0), diagnostics: reason('tools_changed') },
        }),
      ].join('\n'),
    );
    const analysis = analyzeCapture(capture);
    expect(analysis.requests.map((request) => [request.missCause, request.serverCause])).toEqual([
      [null, null],
      ['clock', 'system_changed'],
      ['clock', 'tools_changed'],
    ]);
    expect(analysis.conversations[0]!.causeAgreement).toEqual({
      diagnosed: 2,
      agree: 1,
      disagree: 1,
      agreementRate: 0.5,
      disagreements: [{ cause: 'clock', serverType: 'tools_changed', count: 1 }],
    });
  });

  it('names the file, line and field of a bad capture line', () => {
    expect(() => parseCapture(`${line(T0, anthropicTurn(1))}\n{"at":"soon","body":{}}`, 'x.jsonl')).toThrowError(
      /x\.jsonl:2: at: expected milliseconds or an ISO 8601 time/,
    );
    expect(() => parseCapture('{"at":1}', 'y.jsonl')).toThrowError(CaptureError);
    expect(() => parseCapture('not json', 'z.jsonl')).toThrowError(/z\.jsonl:1: not valid JSON/);
  });

  it("reads the proxy's own capture: reported usage beside the modelled one", async () => {
    const harness = await startHarness({ proxy: { plan: true } });
    try {
      const client = new Anthropic({ apiKey: TEST_KEY, baseURL: harness.proxy.url, maxRetries: 0 });
      for (let turn = 1; turn <= 3; turn++) await client.messages.create(anthropicTurn(turn, { marked: false }));
      await harness.flush();
      const capture = parseCapture(harness.captured.map((record) => JSON.stringify(record)).join('\n'));
      const analysis = analyzeCapture(capture);
      expect(analysis.requests.map((request) => request.source)).toEqual(['reported', 'reported', 'reported']);
      expect(analysis.requests[2]!.readTokens).toBe(
        (harness.captured[2]!.usage as { cache_read_input_tokens: number }).cache_read_input_tokens,
      );
      // The usage is the planned body's: the model judges that body and agrees with the emulator. The
      // client placed no markers: its own bodies would have read nothing.
      expect(analysis.requests[2]!.modelledReadTokens).toBe(analysis.requests[2]!.readTokens);
      expect(analysis.conversations).toHaveLength(1);
      expect(analysis.conversations[0]!.clientReadShare).toBe(0);
    } finally {
      await harness.close();
    }
  });
});
