import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { anthropicTurn, chatTurn } from '../test-support/sessions.js';
import { analyzeCapture } from './analyze-capture.js';
import { parseCapture } from './read-capture.js';

type JsonRecord = Record<string, unknown>;

const T0 = Date.UTC(2026, 10, 28, 10, 0, 0);

/**
 * A scripted client behind `cachet proxy` (in front of the emulator, one fake clock): the capture
 * as `cachet proxy --capture --store-content full` writes it, read back as `cachet analyze` reads it.
 */
async function captureThroughProxy(bodies: JsonRecord[], plan: boolean, path = '/v1/messages'): Promise<string> {
  let clock = T0;
  harness = await startHarness({ now: () => clock, ...(plan ? { proxy: { plan: {} } } : {}) });
  for (const body of bodies) {
    clock += 20_000;
    const response = await fetch(`${harness.proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, authorization: `Bearer ${TEST_KEY}` },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
  await harness.flush();
  const capture = harness.captured.map((record) => JSON.stringify(record)).join('\n');
  await harness.close();
  harness = undefined;
  return capture;
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const markerless = [1, 2, 3, 4, 5, 6].map((turn) => anthropicTurn(turn, { marked: false }) as unknown as JsonRecord);

describe('cachet analyze on a capture of cachet proxy --plan', () => {
  it("reports the plan at what was sent (the usage is the sent bodies'), and the client's own bodies beside it", async () => {
    const [conversation] = analyzeCapture(parseCapture(await captureThroughProxy(markerless, true))).conversations;
    // The emulator's replies have output tokens: the plan's figure weighs them as the actual does.
    expect(conversation!.outputTokens).toBeGreaterThan(0);
    expect(conversation!.plannedCostUsd).toBeCloseTo(conversation!.costUsd, 12);
    expect(conversation!.plannedReadShare).toBeCloseTo(conversation!.readShare, 12);
    expect(conversation!.readShare).toBeGreaterThan(0.5);
    // The client placed no marker: without the plan it would have read nothing.
    expect(conversation!.clientReadShare).toBe(0);
    expect(conversation!.clientCostUsd!).toBeGreaterThan(conversation!.costUsd * 2);
  });

  it('names no miss the sent bodies did not have (the client body had no breakpoint; the sent one did)', async () => {
    const analysis = analyzeCapture(parseCapture(await captureThroughProxy(markerless, true)));
    expect(analysis.requests.map((request) => request.missCause)).toEqual(markerless.map(() => null));
  });

  it("a pass-through capture: the plan's figure is what the same client cost through --plan (output tokens on both sides)", async () => {
    const [passThrough] = analyzeCapture(parseCapture(await captureThroughProxy(markerless, false))).conversations;
    const [planned] = analyzeCapture(parseCapture(await captureThroughProxy(markerless, true))).conversations;
    expect(passThrough!.outputTokens).toBeGreaterThan(0);
    expect(passThrough!.clientCostUsd).toBeNull();
    expect(passThrough!.plannedCostUsd).toBeCloseTo(planned!.costUsd, 12);
    expect(passThrough!.plannedReadShare).toBeCloseTo(planned!.readShare, 12);
    // A client marking where the plan marks is judged in lockstep: its plan is its cost.
    const marked = [1, 2, 3, 4, 5, 6].map((turn) => {
      const body = structuredClone(anthropicTurn(turn)) as unknown as JsonRecord;
      (body.tools as JsonRecord[])[0]!.cache_control = { type: 'ephemeral' };
      return body;
    });
    const [lockstep] = analyzeCapture(parseCapture(await captureThroughProxy(marked, false))).conversations;
    expect(lockstep!.plannedCostUsd).toBeCloseTo(lockstep!.costUsd, 12);
  });

  it('names no miss where an OpenAI prompt grew and its read was rounded down to 128-token steps', async () => {
    const bodies = [1, 2, 3, 4, 5].map((turn) => chatTurn(turn) as unknown as JsonRecord);
    const analysis = analyzeCapture(parseCapture(await captureThroughProxy(bodies, false, '/v1/chat/completions')));
    expect(analysis.requests.slice(1).every((request) => request.readTokens > 0)).toBe(true);
    expect(analysis.requests.map((request) => request.missCause)).toEqual(bodies.map(() => null));
    expect(analysis.conversations[0]!.plannedCostUsd).toBeCloseTo(analysis.conversations[0]!.costUsd, 12);
  });
});
