import { describe, expect, it } from 'vitest';
import { FUTURE_KNOWLEDGE, hindsightOracle } from './hindsight-oracle.js';
import type { HindsightRequest, HindsightRun, HindsightUnit } from './hindsight-run.js';
import type { OracleRules } from './oracle-rules.js';

const MINUTE = 60_000;

/** Anthropic-shaped rules in units of one uncached token. */
const explicitRules: OracleRules = {
  kind: 'explicit',
  priced: false,
  inputRate: 1,
  readRate: 0.1,
  write5mRate: 1.25,
  write1hRate: 2,
  shortTtlMs: 5 * MINUTE,
  longTtlMs: 60 * MINUTE,
  minimumTokens: 1000,
  incrementTokens: 1,
  reusesReply: false,
  fixedFraming: true,
  deferredTools: true,
  maxCachedTokens: Number.POSITIVE_INFINITY,
  keepAlivePings: false,
  imagesKeyMessages: false,
  explicitCache: null,
};

/** Gemini-shaped rules: implicit caching for five idle minutes, explicit caches stored per token-hour. */
const geminiRules: OracleRules = {
  ...explicitRules,
  kind: 'automatic',
  write5mRate: 1,
  write1hRate: 1,
  shortTtlMs: 5 * MINUTE,
  longTtlMs: 5 * MINUTE,
  minimumTokens: 1024,
  deferredTools: false,
  explicitCache: { minimumTokens: 1024, createRate: 1, readRate: 0.1, storageRatePerTokenHour: 3 },
};

const unit = (id: string, tokens: number): HindsightUnit => ({ id, tokens });

/** One request per turn unless `steps` says otherwise; history grows by `reply` tokens each request. */
function run(
  requests: Array<{ turn: number; step: number; at: number; history?: HindsightUnit[]; tail?: number; user?: number }>,
): HindsightRun {
  const built: HindsightRequest[] = requests.map((request) => ({
    turn: request.turn,
    step: request.step,
    at: request.at,
    model: 'm',
    tools: [unit('tools', 2000)],
    discoveredTools: [],
    statics: [unit('system', 3000)],
    earlierHistory: [],
    userMessage: [unit(`user${request.turn}`, request.user ?? 10)],
    turnHistory: request.history ?? [],
    turnTail: request.tail ? [unit(`tail${request.turn}`, request.tail)] : [],
    clockNow: null,
    clockAtTurnStart: null,
  }));
  return { workload: 'test', provider: 'anthropic', requests: built };
}

describe('hindsightOracle', () => {
  it('writes the shared prefix once at the short TTL and reads it after a short gap', () => {
    const result = hindsightOracle(
      run([
        { turn: 1, step: 0, at: 0 },
        { turn: 1, step: 1, at: MINUTE, history: [unit('reply', 100)] },
      ]),
      explicitRules,
    );
    // First: write tools + system + user (5,010) at 1.25. Second: read 5,010, send the reply's 100 uncached.
    expect(result.requests.map((request) => [request.readTokens, request.writeTokens, request.writeTtl])).toEqual([
      [0, 5010, 'short'],
      [5010, 0, null],
    ]);
    expect(result.cost).toBeCloseTo(5010 * 1.25 + 5010 * 0.1 + 100, 6);
    expect(result.futureKnowledge).toEqual(FUTURE_KNOWLEDGE);
  });

  it('pays the long TTL only when a gap longer than five minutes follows', () => {
    // Three requests: a long write (2×) read twice (0.1× each) beats sending the prefix three times.
    const requests = (gap: number) =>
      run([
        { turn: 1, step: 0, at: 0 },
        { turn: 2, step: 0, at: gap },
        { turn: 3, step: 0, at: 2 * gap },
      ]);
    expect(hindsightOracle(requests(20 * MINUTE), explicitRules).requests[0]?.writeTtl).toBe('long');
    expect(hindsightOracle(requests(2 * MINUTE), explicitRules).requests[0]?.writeTtl).toBe('short');
    // Past the longest lifetime nothing survives: writing would be money thrown away.
    const stale = hindsightOracle(requests(2 * 60 * MINUTE), explicitRules);
    expect(stale.requests[0]?.writeTokens).toBe(0);
    expect(stale.cost).toBe(3 * 5010);
  });

  it('extends a prefix read from short entries with a long write: the long entry covers the whole prefix', () => {
    // Two requests a minute apart, then a 30-minute pause: the second request reads the short
    // entry and writes only its new segment with the long TTL, which keeps everything for the pause.
    const result = hindsightOracle(
      run([
        { turn: 1, step: 0, at: 0 },
        { turn: 1, step: 1, at: MINUTE, history: [unit('reply', 2000)] },
        { turn: 1, step: 2, at: 31 * MINUTE, history: [unit('reply', 2000), unit('result', 10)] },
      ]),
      explicitRules,
    );
    expect(result.requests.map((request) => [request.readTokens, request.writeTokens, request.writeTtl])).toEqual([
      [0, 5010, 'short'],
      [5010, 2000, 'long'],
      [7010, 0, null],
    ]);
  });

  it('keeps a prefix alive through a pause with pings, priced as reads, only where pre-warm requests exist', () => {
    // Two requests 12 minutes apart in one turn, the second adding 10 tokens: two pings at the
    // short TTL (⌈12 ÷ 5⌉ − 1) keep the 5,010-token prefix for 2 × 0.1 × 5,010, less than the
    // long write's premium (0.75 × 5,010) or a re-write at 1.25×.
    const requests = run([
      { turn: 1, step: 0, at: 0 },
      { turn: 1, step: 1, at: 12 * MINUTE, history: [unit('reply', 10)] },
    ]);
    const pinging = hindsightOracle(requests, { ...explicitRules, keepAlivePings: true });
    expect(pinging.requests.map((request) => [request.pings, request.readTokens])).toEqual([
      [0, 0],
      [2, 5010],
    ]);
    expect(pinging.requests[1]?.pingCost).toBeCloseTo(2 * 0.1 * 5010, 6);
    expect(pinging.cost).toBeCloseTo(5010 * 1.25 + 2 * 0.1 * 5010 + 5010 * 0.1 + 10, 6);
    // Without pre-warm requests the same pause costs the long write's premium: never less than with pings.
    const withoutPings = hindsightOracle(requests, explicitRules);
    expect(withoutPings.requests.every((request) => request.pings === 0)).toBe(true);
    expect(withoutPings.cost).toBeGreaterThan(pinging.cost);
  });

  it('sends no ping after a request with extended thinking: Anthropic refuses max_tokens: 0 with it', () => {
    const requests = run([
      { turn: 1, step: 0, at: 0 },
      { turn: 1, step: 1, at: 12 * MINUTE, history: [unit('reply', 10)] },
    ]);
    const rules = { ...explicitRules, keepAlivePings: true };
    const withThinking = (thinking: HindsightRequest['thinking']): HindsightRun => ({
      ...requests,
      requests: requests.requests.map((request) => ({ ...request, thinking })),
    });
    const refused = hindsightOracle(withThinking({ type: 'enabled', budgetTokens: 2048 }), rules);
    expect(refused.requests.map((request) => request.pings)).toEqual([0, 0]);
    // The pause then costs what it costs without pre-warm requests: the long write's premium.
    expect(refused.cost).toBeCloseTo(hindsightOracle(requests, explicitRules).cost, 9);
    expect(hindsightOracle(withThinking({ type: 'adaptive' }), rules).requests[1]?.pings).toBe(0);
    // Thinking switched off is no obstacle: the pings stay.
    expect(hindsightOracle(withThinking({ type: 'disabled' }), rules).requests[1]?.pings).toBe(2);
  });

  it('keeps no entry alive with pings for a return to the model when its last request used thinking', () => {
    // m, other, m, other, ... 35 minutes apart: each return to m comes 70 minutes after m's last
    // request, so m's tools and system (5,000) are read only if one ping at the long TTL kept them.
    const requests = run(Array.from({ length: 7 }, (_, index) => ({ turn: index + 1, step: 0, at: index * 35 * MINUTE })));
    const switched = (thinking: HindsightRequest['thinking']): HindsightRun => ({
      ...requests,
      requests: requests.requests.map((request) =>
        request.turn % 2 === 0 ? { ...request, model: 'other' } : { ...request, thinking },
      ),
    });
    const rules = { ...explicitRules, keepAlivePings: true };
    const pinged = hindsightOracle(switched({ type: 'disabled' }), rules);
    expect(
      pinged.requests.filter((request) => request.turn % 2 === 1).map((request) => [request.readTokens, request.pings]),
    ).toEqual([
      [0, 0],
      [5000, 1],
      [5000, 1],
      [5000, 1],
    ]);
    const refused = hindsightOracle(switched({ type: 'adaptive' }), rules);
    // The other model's requests (no thinking) may still ping their own entries.
    expect(refused.requests.filter((request) => request.turn % 2 === 1).every((request) => request.readTokens === 0)).toBe(true);
    expect(refused.requests.filter((request) => request.turn % 2 === 1).every((request) => request.pings === 0)).toBe(true);
  });

  it('reads on a return to a model only what its last request left cached, and pays for writing it', () => {
    // m writes its prefix, its second request adds a 2,000-token reply; then a request on another
    // model, and back to m a minute later. The return can read the reply only if m's second
    // request wrote it (1.25×), though the request after it (on the other model) reads none of it.
    const requests = run([
      { turn: 1, step: 0, at: 0 },
      { turn: 1, step: 1, at: MINUTE, history: [unit('reply', 2000)] },
      { turn: 2, step: 0, at: 2 * MINUTE, history: [unit('reply', 2000)] },
      { turn: 3, step: 0, at: 3 * MINUTE, history: [unit('reply', 2000)] },
    ]);
    const switched: HindsightRun = {
      ...requests,
      requests: requests.requests.map((request, index) => ({
        ...request,
        // History carries over: turn 2 and 3 repeat turn 1's exchange before their own message.
        earlierHistory: index >= 2 ? [unit('user1', 10), unit('reply', 2000)] : [],
        turnHistory: index >= 2 ? [] : request.turnHistory,
        model: request.turn === 2 ? 'other' : 'm',
      })),
    };
    const result = hindsightOracle(switched, explicitRules);
    expect(result.requests.map((request) => [request.readTokens, request.writeTokens])).toEqual([
      [0, 5010],
      [5010, 2000],
      [0, 0],
      [7010, 0],
    ]);
    // The first model's second request pays the write (it was free when a return read it all).
    expect(result.requests[1]?.cost).toBeCloseTo(5010 * 0.1 + 2000 * 1.25, 6);
  });

  it('pings a long entry at the long TTL through pauses longer than an hour', () => {
    const requests = run([
      { turn: 1, step: 0, at: 0 },
      { turn: 2, step: 0, at: 90 * MINUTE },
      { turn: 3, step: 0, at: 180 * MINUTE },
    ]);
    const result = hindsightOracle(requests, { ...explicitRules, keepAlivePings: true });
    // Tools and system (5,000) written once at 2×, one ping (0.1×) before each read: less than
    // sending them three times, or 17 short pings a pause.
    expect(result.requests.map((request) => [request.writeTtl, request.pings])).toEqual([
      ['long', 0],
      [null, 1],
      [null, 1],
    ]);
    expect(result.cost).toBeCloseTo(5000 * 2 + 10 + 2 * (0.1 * 5000 + 0.1 * 5000 + 10), 6);
  });

  it('persists a large tail for the turn when the tool loop is long, and leaves it last for a single step', () => {
    const loop = [0, 1, 2, 3].map((step) => ({
      turn: 1,
      step,
      at: step * 10_000,
      tail: 2000,
      history: Array.from({ length: step }, (_, index) => unit(`reply${index}`, 50)),
    }));
    expect(hindsightOracle(run(loop), explicitRules).requests.map((request) => request.tailScope)).toEqual([
      'turn',
      'turn',
      'turn',
      'turn',
    ]);
    const single = hindsightOracle(run([{ turn: 1, step: 0, at: 0, tail: 2000 }]), explicitRules);
    expect(single.requests[0]?.tailScope).toBe('request');
  });

  it('keeps paying for a persisted tail in every later request: it stays in history', () => {
    const loop = [0, 1, 2, 3].map((step) => ({
      turn: 1,
      step,
      at: step * 10_000,
      tail: 2000,
      history: Array.from({ length: step }, (_, index) => unit(`reply${index}`, 50)),
    }));
    const later = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ turn: index + 2, step: 0, at: (index + 1) * MINUTE, user: 10 }));
    const short = hindsightOracle(run([...loop, ...later(1)]), explicitRules);
    expect(short.requests[0]?.tailScope).toBe('turn');
    // The next turn sends turn 1's 2,000 tail tokens again (read at 0.1 at the least).
    const next = short.requests[4];
    expect(next?.inputTokens).toBe(5000 + 2000 + 10);
    expect(next?.readTokens).toBeGreaterThanOrEqual(2000);
    // With a long session after it, carrying 2,000 tokens through 200 requests costs more than re-sending it 4 times.
    const long = hindsightOracle(run([...loop, ...later(200)]), explicitRules);
    expect(long.requests[0]?.tailScope).toBe('request');
  });

  it('pads a prefix below the minimum only when the reads repay the padding', () => {
    const small = (count: number) =>
      run(
        Array.from({ length: count }, (_, index) => ({
          turn: index + 1,
          step: 0,
          at: index * MINUTE,
        })),
      );
    const rules = { ...explicitRules, minimumTokens: 8000 };
    expect(hindsightOracle(small(2), rules).paddingTokens).toBe(0);
    expect(hindsightOracle(small(30), rules).paddingTokens).toBe(3000);
  });

  it('pads by just enough to bring a later request to the minimum when that is cheapest', () => {
    // Static 5,010 tokens, minimum 8,000: a 2,500-token reply brings the second request to 7,510.
    // Padding 490 lets every later request read; padding to the static minimum (2,990) costs more.
    const growing = run(
      Array.from({ length: 12 }, (_, step) => ({
        turn: 1,
        step,
        at: step * 10_000,
        history:
          step === 0 ? [] : [unit('reply', 2500), ...Array.from({ length: step - 1 }, (_, index) => unit(`r${index}`, 10))],
      })),
    );
    const result = hindsightOracle(growing, { ...explicitRules, minimumTokens: 8000 });
    expect(result.paddingTokens).toBe(490);
    expect(result.requests.slice(2).every((request) => request.readTokens >= 8000)).toBe(true);
  });

  it('reads nothing across a model change', () => {
    const requests = run([
      { turn: 1, step: 0, at: 0 },
      { turn: 2, step: 0, at: MINUTE },
    ]);
    (requests.requests[1] as HindsightRequest).model = 'other';
    const result = hindsightOracle(requests, explicitRules);
    expect(result.requests.map((request) => request.readTokens)).toEqual([0, 0]);
  });

  it('rounds automatic-caching reads down to the 128-token steps past the minimum', () => {
    const rules: OracleRules = {
      ...explicitRules,
      kind: 'automatic',
      write5mRate: 1,
      write1hRate: 1,
      minimumTokens: 1024,
      incrementTokens: 128,
      shortTtlMs: 24 * 60 * MINUTE,
      longTtlMs: 24 * 60 * MINUTE,
    };
    const result = hindsightOracle(
      run([
        { turn: 1, step: 0, at: 0 },
        { turn: 2, step: 0, at: 60 * MINUTE },
      ]),
      rules,
    );
    // 5,010 shared → 1,024 + 31 × 128 = 4,992.
    expect(result.requests[1]?.readTokens).toBe(4992);
  });

  it('lets a Gemini implicit entry lapse after five idle minutes', () => {
    const requests = (gap: number) =>
      run([
        { turn: 1, step: 0, at: 0 },
        { turn: 2, step: 0, at: gap },
      ]);
    const noExplicit = { ...geminiRules, explicitCache: null };
    expect(hindsightOracle(requests(4 * MINUTE), noExplicit).requests[1]?.readTokens).toBe(5000);
    expect(hindsightOracle(requests(6 * MINUTE), noExplicit).requests[1]?.readTokens).toBe(0);
  });

  it('creates a Gemini explicit cache to bridge pauses only when its storage costs less than the misses', () => {
    // Ten turns 20 minutes apart: implicit entries never survive. An explicit cache of the static
    // 5,000 tokens costs 5,000 × (1 + 0.1) once, then 5,000 × 0.1 per read and 5,000 × 3/3 per
    // 20-minute gap: 1.1 per token per later request against 1 uncached — not worth it...
    const turns = (gap: number) =>
      run(Array.from({ length: 10 }, (_, index) => ({ turn: index + 1, step: 0, at: index * gap, user: 10 })));
    const slow = hindsightOracle(turns(20 * MINUTE), geminiRules);
    expect(slow.requests.every((request) => request.explicitReadTokens === 0)).toBe(true);
    expect(slow.cost).toBeCloseTo(10 * 5010, 6);
    // ...while with 10-minute gaps storage is 0.5 + 0.1 per token per request, cheaper than 1.
    const fast = hindsightOracle(turns(10 * MINUTE), geminiRules);
    expect(fast.requests[0]?.writeTtl).toBe('explicit');
    expect(fast.requests.map((request) => request.explicitReadTokens)).toEqual(Array(10).fill(5000));
    const storage = 9 * 5000 * (10 / 60) * 3;
    expect(fast.cost).toBeCloseTo(5000 * 1.1 + 9 * 5000 * 0.1 + 10 * 10 + storage, 6);
  });

  it('reads only the static prefix where images first appear, on rules where they key the messages', () => {
    // The second turn sends the session's first image: its messages no longer match any entry.
    const requests = run([
      { turn: 1, step: 0, at: 0 },
      { turn: 1, step: 1, at: MINUTE, history: [unit('reply', 2000)] },
      { turn: 2, step: 0, at: 2 * MINUTE, history: [unit('reply', 2000)] },
    ]);
    const withImage: HindsightRun = {
      ...requests,
      requests: requests.requests.map((request) =>
        request.turn === 2
          ? { ...request, images: true, earlierHistory: [unit('user1', 10), unit('reply', 2000)], turnHistory: [] }
          : request,
      ),
    };
    const keyed = hindsightOracle(withImage, { ...explicitRules, imagesKeyMessages: true });
    // Tools and system (5,000) are read; the history after them is sent again.
    expect(keyed.requests[2]?.readTokens).toBe(5000);
    expect(hindsightOracle(withImage, explicitRules).requests[2]?.readTokens).toBe(7010);
  });

  it('reads no more than the provider caches (Nova on Bedrock: a capped prefix)', () => {
    const capped = { ...explicitRules, maxCachedTokens: 2000, minimumTokens: 1000 };
    const result = hindsightOracle(
      run([
        { turn: 1, step: 0, at: 0 },
        { turn: 2, step: 0, at: MINUTE },
      ]),
      capped,
    );
    expect(result.requests.map((request) => [request.readTokens, request.writeTokens])).toEqual([
      [0, 2000],
      [2000, 0],
    ]);
  });
});
