import { describe, expect, it, vi } from 'vitest';
import { createCacheModel } from '../cache/models/create-cache-model.js';
import { normalizeWireBody } from '../cache/wire/normalize-wire-body.js';
import { fixtureSession } from '../providers/anthropic/test-support/fixtures.js';
import { convertToBedrock } from '../providers/bedrock/convert-request.js';
import { assemble } from '../session/assemble.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { workloadRequests } from '../workloads/workload.js';
import { judgeBody, normalizedOf } from './judged-body.js';

const anthropicBody = {
  model: 'claude-sonnet-4-5',
  max_tokens: 10,
  system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
};

describe('judgeBody', () => {
  it("keeps the Anthropic model's normalisation: the provider's own", () => {
    const { verdict, judged } = judgeBody(createCacheModel('anthropic'), 'anthropic', anthropicBody, { at: 0 });
    expect(verdict.inputTokens).toBeGreaterThan(0);
    expect(judged.normalized).not.toBeNull();
    expect(JSON.stringify(judged.normalized)).toBe(JSON.stringify(normalizeWireBody(anthropicBody, 'anthropic')));
  });

  it('keeps a Bedrock body as the break watch normalises it (format bedrock)', () => {
    const session = fixtureSession({ model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', tail: [] });
    session.appendUserText('hello there');
    const body = convertToBedrock(assemble(session)).body;
    const { judged } = judgeBody(createCacheModel('bedrock'), 'bedrock', body, { at: 0 });
    expect(judged.normalized?.format).toBe('bedrock');
    expect(JSON.stringify(judged.normalized)).toBe(JSON.stringify(normalizeWireBody(body, 'bedrock')));
  });

  it('keeps nothing when the model read the body as another format, and normalises it when asked', () => {
    const { judged } = judgeBody(createCacheModel('anthropic'), 'openrouter', anthropicBody, { at: 0 });
    expect(judged.normalized).toBeNull();
    expect(normalizedOf(judged, 'openrouter').format).toBe(normalizeWireBody(anthropicBody, 'openrouter').format);
  });
});

describe('the simulator normalises each request once', () => {
  it('the cache model, the break watch and the miss cause share one normalisation per request', async () => {
    // The test workers keep modules loaded between files: the simulator is loaded afresh here,
    // every normalisation it makes going through a counting wrapper, and dropped afterwards.
    let normalizations = 0;
    vi.resetModules();
    vi.doMock('../cache/wire/normalize-wire-body.js', async (original) => {
      const actual = await original<typeof import('../cache/wire/normalize-wire-body.js')>();
      const normalizeWireBody: typeof actual.normalizeWireBody = (...args) => {
        normalizations++;
        return actual.normalizeWireBody(...args);
      };
      return { ...actual, normalizeWireBody };
    });
    try {
      const { simulateWorkload: simulate } = await import('./simulate-workload.js');
      const workload = await loadWorkload('long-session-idle-gaps');
      const shortened = { ...workload, turns: workload.turns.slice(0, 30) };
      const baseline = {
        provider: workload.provider,
        model: workload.model,
        // Every request short of an ideal read: the miss cause looks at each one.
        idealCacheReadTokens: new Array<number>(workloadRequests(shortened).length).fill(10_000_000),
        oracle: simulate(shortened, { strategy: 'naive' }).oracle,
      };
      normalizations = 0;
      const result = simulate(shortened, { strategy: 'cachet', baseline });
      expect(result.requests.every((request) => request.missCause !== null)).toBe(true);
      expect(normalizations).toBe(result.requests.length + result.pings.length);
    } finally {
      vi.doUnmock('../cache/wire/normalize-wire-body.js');
      vi.resetModules();
    }
  });
});
