import type { CachetEvent } from '../../src/events/catalog.js';
import { EventBus } from '../../src/events/event-bus.js';
import { seededRandom } from './synthetic-session.js';

const MODELS = ['claude-sonnet-4-5', 'gpt-5', 'claude-haiku-4-5'];
const CAUSES = ['clock', 'tool-order', 'history-edited', 'ttl-expired'] as const;
const SKILLS = ['git', 'pdf', 'sql', 'deploy', 'review'];

/**
 * `count` events of realistic shape for trace benchmarks: sessions of about 100 events each
 * (start, turns, assembled requests, usage, some breaks and skill loads), published on a real bus.
 */
export function traceEvents(count: number, seed = 7): CachetEvent[] {
  const random = seededRandom(seed);
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  const t0 = Date.UTC(2026, 10, 1);
  for (let session = 0; events.length < count; session += 1) {
    const sessionId = `bench-${session}`;
    const model = MODELS[session % MODELS.length]!;
    let at = t0 + session * 600_000;
    bus.emit('session.started', sessionId, at, {
      model,
      provider: model.startsWith('gpt') ? 'openai-responses' : 'anthropic',
      strategy: 'cachet',
      globalPrefixHash: 'g',
      sessionPrefixHash: `s${session}`,
    });
    for (let turn = 1; turn <= 24 && events.length < count; turn += 1) {
      at += 5_000 + Math.floor(random() * 60_000);
      bus.emit('turn.started', sessionId, at, { turn });
      bus.emit('usage.recorded', sessionId, at + 900, {
        turn,
        step: 0,
        model,
        usage: {
          uncachedInputTokens: 100 + Math.floor(random() * 400),
          cacheReadTokens: turn === 1 ? 0 : 2000 + turn * 300,
          cacheWrite5mTokens: 200 + Math.floor(random() * 300),
          cacheWrite1hTokens: 0,
          outputTokens: 50 + Math.floor(random() * 200),
          reasoningTokens: 0,
          raw: {},
        },
        costUsd: 0.002 + random() * 0.01,
        uncachedCostUsd: 0.01 + random() * 0.01,
      });
      if (random() < 0.15) {
        bus.emit('cache.break', sessionId, at + 950, {
          turn,
          step: 0,
          cause: CAUSES[Math.floor(random() * CAUSES.length)]!,
          zone: 'system',
          path: 'system[1]',
          byteOffset: 10,
          before: 'a',
          after: 'b',
          missedTokens: 1000 + Math.floor(random() * 3000),
        });
      }
      if (random() < 0.2) {
        bus.emit('skill.loaded', sessionId, at + 960, {
          source: 'workspace',
          skillId: SKILLS[Math.floor(random() * SKILLS.length)]!,
          version: '1',
          loadTokens: 300,
          loadReason: random() < 0.5 ? 'on_demand' : 'always',
          toolUseId: null,
        });
      }
      bus.emit('warning.raised', sessionId, at + 970, { source: 'bench', message: 'filler event' });
    }
  }
  return events.slice(0, count);
}
