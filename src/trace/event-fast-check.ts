import { EVENT_TYPES } from '../events/catalog.js';

type JsonRecord = Record<string, unknown>;

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);
const LABELS = ['provider', 'strategy', 'source', 'client', 'run', 'workload', 'project'] as const;
const USAGE_COUNTS = [
  'uncachedInputTokens',
  'cacheReadTokens',
  'cacheWrite5mTokens',
  'cacheWrite1hTokens',
  'outputTokens',
  'reasoningTokens',
] as const;

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isMoney = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isText = (value: unknown): boolean => typeof value === 'string';
const isName = (value: unknown): boolean => typeof value === 'string' && value.length > 0;
const isLabel = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.length <= 200);

/** A plain object (what the schemas' `z.object` and `z.record` surely accept); anything else is left to them. */
function isPlainRecord(value: unknown): value is JsonRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  // An own `constructor` member makes zod's plain-object test read it: left to the schemas.
  return (prototype === Object.prototype || prototype === null) && !Object.hasOwn(value, 'constructor');
}

const counted = (payload: JsonRecord, ...keys: string[]): boolean => keys.every((key) => isCount(payload[key]));

/** Per event type, the column fields `validateEvent`'s schemas check, as plain predicates. */
const PAYLOAD_CHECKS: Partial<Record<string, (payload: JsonRecord) => boolean>> = {
  'session.started': (payload) =>
    isName(payload.model) &&
    LABELS.every((key) => isLabel(payload[key])) &&
    (payload.oracleCostUsd === undefined ||
      payload.oracleCostUsd === null ||
      (isMoney(payload.oracleCostUsd) && (payload.oracleCostUsd as number) >= 0)),
  'request.assembled': (payload) => counted(payload, 'turn', 'step') && isText(payload.model) && isText(payload.provider),
  'proxy.forwarded': (payload) => counted(payload, 'turn', 'step') && isText(payload.model) && isText(payload.provider),
  'volatile.moved': (payload) => counted(payload, 'turn', 'step'),
  'usage.recorded': (payload) =>
    counted(payload, 'turn', 'step') &&
    isText(payload.model) &&
    isPlainRecord(payload.usage) &&
    counted(payload.usage, ...USAGE_COUNTS) &&
    isMoney(payload.costUsd) &&
    isMoney(payload.uncachedCostUsd),
  'cache.break': (payload) => counted(payload, 'turn', 'step', 'missedTokens') && isName(payload.cause),
  'skill.loaded': (payload) => isName(payload.skillId) && isName(payload.loadReason) && isCount(payload.loadTokens),
  'turn.started': (payload) => isCount(payload.turn),
};

/** Types whose payload is checked here: must be those `validateEvent` has a payload schema for (tested). */
export const FAST_CHECKED_TYPES: readonly string[] = Object.keys(PAYLOAD_CHECKS);

/**
 * True when `event` surely passes `validateEvent`'s schemas: the envelope and the column fields
 * checked with plain comparisons, no schema walk (a proxy stores three events per request).
 * False means only "not sure": the schemas then decide, and name what is wrong. Never accepts
 * what the schemas refuse (`event-fast-check.test.ts` holds it to them).
 */
export function surelyValidEvent(event: unknown): boolean {
  if (!isPlainRecord(event)) return false;
  const { type, sessionId, seq, at, payload } = event;
  if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) return false;
  if (!isName(sessionId) || !isCount(seq) || !isMoney(at) || !isPlainRecord(payload)) return false;
  const check = PAYLOAD_CHECKS[type];
  return check === undefined || check(payload);
}
