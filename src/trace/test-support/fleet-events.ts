import type { CacheBreakCause, CachetEvent, SessionLabels } from '../../events/catalog.js';

export const FLEET_T0 = Date.UTC(2026, 10, 24, 8, 0, 0);
const MINUTE = 60_000;

const SOURCES = ['simulation', 'proxy', 'claude-code'] as const;
const MODELS = ['claude-sonnet-4-5', 'gpt-5', 'claude-haiku-4-5'] as const;
const PROVIDER_OF: Record<(typeof MODELS)[number], string> = {
  'claude-sonnet-4-5': 'anthropic',
  'gpt-5': 'openai-responses',
  'claude-haiku-4-5': 'anthropic',
};
const STRATEGIES = ['cachet', 'naive', 'markers'] as const;
const WORKLOADS = ['coding-agent', 'support-bot', 'research'] as const;
const CAUSES: CacheBreakCause[] = ['clock', 'ttl-expired', 'tools-changed', 'history-edited', 'model-changed'];

export interface FleetOptions {
  sessions: number;
  /** usage.recorded events per session (each followed by its break when one happens). */
  requestsPerSession: number;
  /** Sessions start this far apart (default 7 minutes: 100 sessions span about half a day). */
  spacingMs?: number;
}

/**
 * A deterministic fleet of sessions from three sources, three models, three strategies and
 * workloads, two runs: usage with reads, writes and costs, a break every few requests with a
 * rotating cause, and the oracle's cost on simulated sessions. For the overview's tests (both
 * backends must agree) and the serve benchmark (10,000 sessions, 1,000,000 events).
 */
export function* fleetEvents(options: FleetOptions): Generator<CachetEvent> {
  const spacing = options.spacingMs ?? 7 * MINUTE;
  for (let index = 0; index < options.sessions; index++) {
    const source = SOURCES[index % SOURCES.length]!;
    const model = MODELS[Math.floor(index / 3) % MODELS.length]!;
    const strategy = STRATEGIES[Math.floor(index / 2) % STRATEGIES.length]!;
    const workload = WORKLOADS[(index % 5) % WORKLOADS.length]!;
    const sessionId = `${source}/${workload}/${strategy}/${index}`;
    const start = FLEET_T0 + index * spacing;
    let seq = 0;
    const labels: SessionLabels = {
      provider: PROVIDER_OF[model],
      strategy,
      source,
      run: `run-${index % 2}`,
      ...(source === 'simulation' ? { workload, oracleCostUsd: 0.01 + (index % 7) * 0.001 } : {}),
      ...(source === 'proxy' ? { client: 'claude-cli/2.1.3' } : {}),
      ...(source === 'claude-code' ? { project: `repo-${index % 4}` } : {}),
    };
    yield event('session.started', sessionId, seq++, start, {
      model,
      ...labels,
      globalPrefixHash: 'g',
      sessionPrefixHash: `s${index}`,
    });
    for (let request = 0; request < options.requestsPerSession; request++) {
      const at = start + request * 40_000;
      const broken = request > 0 && (request + index) % 4 === 0;
      const total = 4000 + request * 300 + (index % 11) * 10;
      const read = request === 0 || broken ? 0 : total - 300;
      const written = request === 0 || broken ? total - 200 : 200;
      const uncached = total - read - written;
      const costUsd = (uncached * 3 + read * 0.3 + written * 3.75 + 60 * 15) / 1_000_000;
      const uncachedCostUsd = (total * 3 + 60 * 15) / 1_000_000;
      yield event('usage.recorded', sessionId, seq++, at, {
        turn: request + 1,
        step: 0,
        model,
        usage: {
          uncachedInputTokens: uncached,
          cacheReadTokens: read,
          cacheWrite5mTokens: written,
          cacheWrite1hTokens: 0,
          outputTokens: 60,
          reasoningTokens: 0,
          raw: {},
        },
        costUsd,
        uncachedCostUsd,
      });
      if (broken) {
        yield event('cache.break', sessionId, seq++, at, {
          turn: request + 1,
          step: 0,
          cause: CAUSES[(index + request) % CAUSES.length]!,
          zone: 'system',
          path: 'system[0]',
          byteOffset: 0,
          before: null,
          after: null,
          missedTokens: total - 500,
        });
      }
    }
  }
}

function event(type: string, sessionId: string, seq: number, at: number, payload: unknown): CachetEvent {
  return { type, sessionId, seq, at, payload } as CachetEvent;
}
