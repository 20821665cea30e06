import { ValidationError } from '../model/errors.js';
import { EVENT_TYPES, type EventType } from './catalog.js';

/** Deeper payloads are refused: `JSON.stringify` would overflow the stack long before a store could hold them. */
export const MAX_PAYLOAD_DEPTH = 256;

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

interface Frame {
  value: unknown;
  key: string | number | null;
  parent: Frame | null;
  depth: number;
  /** Second visit of an object, once its children are done: it stops being an ancestor. */
  leaving: boolean;
}

/**
 * Check that an event about to be published can be stored: a known type, a non-empty
 * session id, a finite `at` (fractional milliseconds from sub-millisecond clocks such as
 * `performance.timeOrigin + performance.now()` are legitimate and kept as they are), a
 * non-negative safe-integer `seq`, and a payload that JSON can represent — no BigInt, no
 * circular reference, no function or symbol value, at most `MAX_PAYLOAD_DEPTH` levels.
 * Throws `ValidationError` naming the field (`event.payload.usage.raw.total`), so the bad
 * event is refused where it is produced instead of blocking every write behind it.
 */
export function validatePublishedEvent(event: {
  type: EventType | string;
  sessionId: unknown;
  seq: unknown;
  at: unknown;
  payload: unknown;
}): void {
  if (typeof event.type !== 'string' || !KNOWN_TYPES.has(event.type)) {
    throw new ValidationError('event.type', `one of the catalog's event types (${EVENT_TYPES.join(', ')})`, String(event.type));
  }
  if (typeof event.sessionId !== 'string' || event.sessionId.length === 0) {
    throw new ValidationError('event.sessionId', 'a non-empty string');
  }
  if (typeof event.at !== 'number' || !Number.isFinite(event.at)) {
    throw new ValidationError('event.at', 'a finite number of milliseconds since the epoch', describe(event.at));
  }
  if (typeof event.seq !== 'number' || !Number.isSafeInteger(event.seq) || event.seq < 0) {
    throw new ValidationError('event.seq', 'a non-negative safe integer', describe(event.seq));
  }
  if (typeof event.payload !== 'object' || event.payload === null || Array.isArray(event.payload)) {
    throw new ValidationError('event.payload', 'an object', describe(event.payload));
  }
  checkJsonRepresentable(event.payload);
}

/** Walk the payload without recursion (a hostile payload may be nested 100,000 deep). */
function checkJsonRepresentable(payload: object): void {
  const ancestors = new Set<object>();
  const stack: Frame[] = [{ value: payload, key: 'payload', parent: null, depth: 0, leaving: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value } = frame;
    if (frame.leaving) {
      ancestors.delete(value as object);
      continue;
    }
    switch (typeof value) {
      case 'bigint':
        throw new ValidationError(pathOf(frame), 'a JSON value (a number or a string, not a BigInt)', `${value}n`);
      case 'function':
      case 'symbol':
        throw new ValidationError(pathOf(frame), 'a JSON value', `a ${typeof value}`);
      case 'object': {
        if (value === null) continue;
        if (ancestors.has(value)) throw new ValidationError(pathOf(frame), 'a JSON value without circular references');
        // Dates and other objects that serialise themselves are taken as they serialise.
        if (typeof (value as { toJSON?: unknown }).toJSON === 'function') continue;
        if (frame.depth >= MAX_PAYLOAD_DEPTH) {
          throw new ValidationError(pathOf(frame), `a value nested at most ${MAX_PAYLOAD_DEPTH} levels deep`);
        }
        ancestors.add(value);
        stack.push({ ...frame, leaving: true });
        const entries: Array<[string | number, unknown]> = Array.isArray(value)
          ? value.map((item, index) => [index, item])
          : Object.entries(value);
        for (const [key, child] of entries) {
          // `undefined` properties are left out by JSON, as they would be by any store.
          if (child !== undefined) stack.push({ value: child, key, parent: frame, depth: frame.depth + 1, leaving: false });
        }
        continue;
      }
      default:
        continue;
    }
  }
}

function pathOf(frame: Frame): string {
  const keys: Array<string | number> = [];
  for (let current: Frame | null = frame; current; current = current.parent) {
    if (current.key !== null) keys.push(current.key);
  }
  return `event.${keys
    .reverse()
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`))
    .join('')}`;
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 80));
  return value === null ? 'null' : typeof value === 'object' ? typeof value : String(value);
}
