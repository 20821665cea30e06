import type { CachetEvent, SessionStartedPayload } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import type { Usage } from '../../model/usage.js';

export const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MINUTE = 60_000;

function usage(uncachedInputTokens: number, cacheReadTokens: number, cacheWrite5mTokens: number, outputTokens: number): Usage {
  return {
    uncachedInputTokens,
    cacheReadTokens,
    cacheWrite5mTokens,
    cacheWrite1hTokens: 0,
    outputTokens,
    reasoningTokens: 0,
    raw: { provider: 'fixture', nested: { note: 'raw payload kept — ünïcødé ✓' } },
  };
}

/**
 * Two sessions on two models with requests, breaks, skill loads and a tool failure,
 * published through a real EventBus (so seq numbering is the bus's own).
 */
export function sampleEvents(): CachetEvent[] {
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  const zoneTokens = { global: 1500, session: 400, history: 100, tail: 20 };
  /** Opens a session on the global prefix both sessions share (`g1`) and starts its first turn at the same instant. */
  const startSession: StartSession = (sessionId, at, start) => {
    const { model, provider, strategy, sessionPrefixHash } = start;
    bus.emit('session.started', sessionId, at, { model, provider, strategy, globalPrefixHash: 'g1', sessionPrefixHash });
    bus.emit('turn.started', sessionId, at, { turn: 1 });
  };

  emitAlphaSession(bus, startSession, zoneTokens);
  emitBetaSession(bus, startSession);
  return events;
}

type StartSession = (sessionId: string, at: number, start: Omit<SessionStartedPayload, 'globalPrefixHash'>) => void;

/** Session alpha (Anthropic, cachet): three turns with skill loads, a clock break and a tool failure. */
function emitAlphaSession(
  bus: EventBus,
  startSession: StartSession,
  zoneTokens: Record<'global' | 'session' | 'history' | 'tail', number>,
): void {
  const alpha = 's-alpha';
  startSession(alpha, T0, { model: 'claude-sonnet-4-5', provider: 'anthropic', strategy: 'cachet', sessionPrefixHash: 's1' });
  bus.emit('request.assembled', alpha, T0 + 1000, {
    turn: 1,
    step: 0,
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    zoneTokens,
    prefixHash: 'p1',
    blockCount: 1,
    sharedBlocks: 0,
    blockHashes: [{ path: 'system[0]', zone: 'global', hash: 'h1' }],
    breakpoints: [{ path: 'system[0]', zone: 'global', ttl: '1h', reason: 'end of global zone' }],
    padding: null,
    warnings: [],
  });
  bus.emit('usage.recorded', alpha, T0 + 2000, {
    turn: 1,
    step: 0,
    model: 'claude-sonnet-4-5',
    usage: usage(100, 0, 2000, 50),
    costUsd: 0.00855,
    uncachedCostUsd: 0.00705,
  });
  bus.emit('skill.loaded', alpha, T0 + 2500, {
    source: 'workspace',
    skillId: 'git',
    version: '1',
    loadTokens: 300,
    loadReason: 'always',
    toolUseId: null,
  });
  bus.emit('turn.started', alpha, T0 + MINUTE, { turn: 2 });
  bus.emit('usage.recorded', alpha, T0 + MINUTE + 1000, {
    turn: 2,
    step: 0,
    model: 'claude-sonnet-4-5',
    usage: usage(150, 2000, 200, 80),
    costUsd: 0.00255,
    uncachedCostUsd: 0.01155,
  });
  bus.emit('skill.loaded', alpha, T0 + MINUTE + 1500, {
    source: 'workspace',
    skillId: 'pdf',
    version: '2',
    loadTokens: 500,
    loadReason: 'on_demand',
    toolUseId: 'toolu_1',
  });
  bus.emit('turn.started', alpha, T0 + 10 * MINUTE, { turn: 3 });
  bus.emit('cache.break', alpha, T0 + 10 * MINUTE + 500, {
    turn: 3,
    step: 0,
    cause: 'clock',
    zone: 'system',
    path: 'system[1]',
    byteOffset: 42,
    before: 'Today is Monday',
    after: 'Today is Tuesday',
    missedTokens: 2200,
  });
  bus.emit('usage.recorded', alpha, T0 + 10 * MINUTE + 1000, {
    turn: 3,
    step: 0,
    model: 'claude-sonnet-4-5',
    usage: usage(100, 0, 2400, 60),
    costUsd: 0.0099,
    uncachedCostUsd: 0.0084,
  });
  bus.emit('tool.failed', alpha, T0 + 10 * MINUTE + 2000, {
    toolName: 'skill_load',
    toolUseId: 'toolu_2',
    code: 'not_found',
    message: 'no skill "x" (NUL \u0000 kept, emoji 🧪)',
  });
}

/** Session beta (OpenAI Responses, naive), an hour later: one turn of three steps with a tool-order break. */
function emitBetaSession(bus: EventBus, startSession: StartSession): void {
  const beta = 's-beta';
  const betaStart = T0 + 60 * MINUTE;
  startSession(beta, betaStart, { model: 'gpt-5', provider: 'openai-responses', strategy: 'naive', sessionPrefixHash: 's2' });
  bus.emit('usage.recorded', beta, betaStart + 1000, {
    turn: 1,
    step: 0,
    model: 'gpt-5',
    usage: usage(3000, 0, 0, 100),
    costUsd: 0.00475,
    uncachedCostUsd: 0.00475,
  });
  bus.emit('usage.recorded', beta, betaStart + 2000, {
    turn: 1,
    step: 1,
    model: 'gpt-5',
    usage: usage(200, 2944, 0, 40),
    costUsd: 0.0011,
    uncachedCostUsd: 0.004,
  });
  bus.emit('cache.break', beta, betaStart + 2500, {
    turn: 1,
    step: 2,
    cause: 'tool-order',
    zone: 'tools',
    path: 'tools[1]',
    byteOffset: 0,
    before: '{"name":"grep"',
    after: '{"name":"read"',
    missedTokens: 2800,
  });
  bus.emit('usage.recorded', beta, betaStart + 3000, {
    turn: 1,
    step: 2,
    model: 'gpt-5',
    usage: usage(3300, 0, 0, 30),
    costUsd: 0.0045,
    uncachedCostUsd: 0.0045,
  });
  bus.emit('skill.loaded', beta, betaStart + 3500, {
    source: 'workspace',
    skillId: 'git',
    version: '1',
    loadTokens: 300,
    loadReason: 'auto_suggested',
    toolUseId: null,
  });
}
