import { z } from 'zod';
import { type CachetEvent, EVENT_TYPES } from '../events/catalog.js';
import { ValidationError } from '../model/errors.js';
import { usageSchema } from '../model/usage.js';
import { assertNever } from '../model/validate.js';
import { surelyValidEvent } from './event-fast-check.js';

/**
 * The figures of an event that analytics aggregate, kept as real columns next to the JSON
 * payload. Every field is null when the event type does not carry it.
 */
export interface EventColumns {
  turn: number | null;
  step: number | null;
  model: string | null;
  provider: string | null;
  strategy: string | null;
  source: string | null;
  client: string | null;
  run: string | null;
  workload: string | null;
  project: string | null;
  oracleCostUsd: number | null;
  uncachedInputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWrite5mTokens: number | null;
  cacheWrite1hTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
  costUsd: number | null;
  uncachedCostUsd: number | null;
  cause: string | null;
  missedTokens: number | null;
  skillId: string | null;
  loadReason: string | null;
  loadTokens: number | null;
}

/** Column names in table order, shared by both backends' INSERT statements. */
export const EVENT_COLUMN_NAMES = [
  'session_id',
  'seq',
  'type',
  'at',
  'turn',
  'step',
  'model',
  'provider',
  'strategy',
  'source',
  'client',
  'run',
  'workload',
  'project',
  'oracle_cost_usd',
  'uncached_input_tokens',
  'cache_read_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cost_usd',
  'uncached_cost_usd',
  'cause',
  'missed_tokens',
  'skill_id',
  'load_reason',
  'load_tokens',
  'payload',
] as const;

const EMPTY: EventColumns = {
  turn: null,
  step: null,
  model: null,
  provider: null,
  strategy: null,
  source: null,
  client: null,
  run: null,
  workload: null,
  project: null,
  oracleCostUsd: null,
  uncachedInputTokens: null,
  cacheReadTokens: null,
  cacheWrite5mTokens: null,
  cacheWrite1hTokens: null,
  outputTokens: null,
  reasoningTokens: null,
  costUsd: null,
  uncachedCostUsd: null,
  cause: null,
  missedTokens: null,
  skillId: null,
  loadReason: null,
  loadTokens: null,
};

/** Project an event onto the aggregated columns. */
export function eventColumns(event: CachetEvent): EventColumns {
  switch (event.type) {
    case 'session.started':
      return {
        ...EMPTY,
        model: event.payload.model,
        provider: event.payload.provider ?? null,
        strategy: event.payload.strategy ?? null,
        source: event.payload.source ?? null,
        client: event.payload.client ?? null,
        run: event.payload.run ?? null,
        workload: event.payload.workload ?? null,
        project: event.payload.project ?? null,
        oracleCostUsd: event.payload.oracleCostUsd ?? null,
      };
    case 'turn.started':
      return { ...EMPTY, turn: event.payload.turn };
    case 'request.assembled':
    case 'proxy.forwarded':
      return {
        ...EMPTY,
        turn: event.payload.turn,
        step: event.payload.step,
        model: event.payload.model,
        provider: event.payload.provider,
      };
    case 'usage.recorded': {
      const { usage } = event.payload;
      return {
        ...EMPTY,
        turn: event.payload.turn,
        step: event.payload.step,
        model: event.payload.model,
        uncachedInputTokens: usage.uncachedInputTokens,
        cacheReadTokens: usage.cacheReadTokens,
        cacheWrite5mTokens: usage.cacheWrite5mTokens,
        cacheWrite1hTokens: usage.cacheWrite1hTokens,
        outputTokens: usage.outputTokens,
        reasoningTokens: usage.reasoningTokens,
        costUsd: event.payload.costUsd,
        uncachedCostUsd: event.payload.uncachedCostUsd,
      };
    }
    case 'cache.break':
      return {
        ...EMPTY,
        turn: event.payload.turn,
        step: event.payload.step,
        cause: event.payload.cause,
        missedTokens: event.payload.missedTokens,
      };
    case 'skill.loaded':
      return {
        ...EMPTY,
        skillId: event.payload.skillId,
        loadReason: event.payload.loadReason,
        loadTokens: event.payload.loadTokens,
      };
    case 'cache.keepalive':
      return { ...EMPTY, model: event.payload.model, provider: event.payload.provider };
    case 'tool.failed':
    case 'compaction.planned':
    case 'compaction.applied':
    case 'compaction.skipped':
    case 'compaction.summarized':
    case 'context.offloaded':
    case 'context.restored':
    case 'checkpoint.created':
    case 'history.rewritten':
    case 'explicit_cache.created':
    case 'explicit_cache.extended':
    case 'explicit_cache.deleted':
    case 'warning.raised':
    case 'session.ended':
    case 'listener.failed':
    case 'trace.dropped':
      return EMPTY;
    case 'volatile.moved':
      return { ...EMPTY, turn: event.payload.turn, step: event.payload.step };
    default:
      return assertNever(event);
  }
}

/** Values for `EVENT_COLUMN_NAMES`, in order. */
export function eventRowValues(event: CachetEvent): unknown[] {
  const columns = eventColumns(event);
  return [
    event.sessionId,
    event.seq,
    event.type,
    event.at,
    columns.turn,
    columns.step,
    columns.model,
    columns.provider,
    columns.strategy,
    columns.source,
    columns.client,
    columns.run,
    columns.workload,
    columns.project,
    columns.oracleCostUsd,
    columns.uncachedInputTokens,
    columns.cacheReadTokens,
    columns.cacheWrite5mTokens,
    columns.cacheWrite1hTokens,
    columns.outputTokens,
    columns.reasoningTokens,
    columns.costUsd,
    columns.uncachedCostUsd,
    columns.cause,
    columns.missedTokens,
    columns.skillId,
    columns.loadReason,
    columns.loadTokens,
    JSON.stringify(event.payload),
  ];
}

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const money = z.number().finite();
/** A session label: a short name (it becomes a filter value and a metrics label). */
const label = z.string().max(200).nullish();

const eventEnvelopeSchema = z.object({
  type: z.enum(EVENT_TYPES as [string, ...string[]]),
  sessionId: z.string().min(1),
  seq: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  at: z.number().finite(),
  payload: z.record(z.string(), z.unknown()),
});

/** The payload fields that become columns are checked too: a bad figure would poison every sum. */
export const columnPayloadSchemas: Partial<Record<string, z.ZodType>> = {
  'session.started': z.object({
    model: z.string().min(1),
    ...Object.fromEntries(
      ['provider', 'strategy', 'source', 'client', 'run', 'workload', 'project'].map((name) => [name, label]),
    ),
    oracleCostUsd: money.nonnegative().nullish(),
  }),
  'request.assembled': z.object({ turn: count, step: count, model: z.string(), provider: z.string() }),
  'proxy.forwarded': z.object({ turn: count, step: count, model: z.string(), provider: z.string() }),
  'volatile.moved': z.object({ turn: count, step: count }),
  'usage.recorded': z.object({
    turn: count,
    step: count,
    model: z.string(),
    usage: usageSchema,
    costUsd: money,
    uncachedCostUsd: money,
    durationMs: z.number().finite().nonnegative().optional(),
  }),
  'cache.break': z.object({ turn: count, step: count, cause: z.string().min(1), missedTokens: count }),
  'skill.loaded': z.object({ skillId: z.string().min(1), loadReason: z.string().min(1), loadTokens: count }),
  'turn.started': z.object({ turn: count }),
};

/**
 * Check an event before it is stored and return it typed. Throws `ValidationError` naming
 * the field, e.g. `events[3].payload.usage.cacheReadTokens`.
 */
export function validateEvent(event: unknown, path = 'event'): CachetEvent {
  // The common case, a well-formed event, costs a few comparisons; the schemas name what is wrong.
  if (surelyValidEvent(event)) return event as CachetEvent;
  const envelope = eventEnvelopeSchema.safeParse(event);
  if (!envelope.success) throw issueToError(envelope.error, path, 'a Cachet event { type, sessionId, seq, at, payload }');
  const payloadSchema = columnPayloadSchemas[envelope.data.type];
  if (payloadSchema) {
    const payload = payloadSchema.safeParse(envelope.data.payload);
    if (!payload.success) throw issueToError(payload.error, `${path}.payload`, `a ${envelope.data.type} payload`);
  }
  return event as CachetEvent;
}

function issueToError(error: z.ZodError, path: string, expected: string): ValidationError {
  const issue = error.issues[0];
  const where = issue ? [path, ...issue.path.map(String)].join('.') : path;
  return new ValidationError(where, expected, issue?.message);
}
