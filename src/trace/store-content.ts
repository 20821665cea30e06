import type { CachetEvent } from '../events/catalog.js';
import { sha256 } from '../model/hash.js';
import type { TraceStore } from './trace-store.js';

/**
 * How much prompt content a trace keeps. `full`: text excerpts of what changed at a break
 * (`cache.break` `before`/`after`), tool error messages, project paths, as recorded.
 * `hashes`: each of those replaced by a short hash (equal text, equal hash), block hashes kept;
 * causes, paths, token counts and costs unchanged. `none`: no text and no hash of it at all.
 * API keys and headers are never part of an event in any mode.
 */
export const STORE_CONTENT_MODES = ['none', 'hashes', 'full'] as const;
export type StoreContent = (typeof STORE_CONTENT_MODES)[number];

/** A short, stable stand-in for a piece of text: `sha256:` and 16 hex digits. */
export function contentHash(text: string): string {
  return `sha256:${sha256(text).slice(0, 16)}`;
}

function stand(text: unknown, mode: StoreContent): string | null {
  if (typeof text !== 'string') return null;
  return mode === 'hashes' ? contentHash(text) : null;
}

/**
 * The event as it may be stored under `mode`: prompt text hashed (`hashes`) or dropped
 * (`none`). Returns the event itself under `full`, and never changes the one passed in.
 */
export function redactEvent(event: CachetEvent, mode: StoreContent): CachetEvent {
  if (mode === 'full') return event;
  switch (event.type) {
    case 'cache.break':
      return {
        ...event,
        payload: { ...event.payload, before: stand(event.payload.before, mode), after: stand(event.payload.after, mode) },
      };
    case 'tool.failed':
      return { ...event, payload: { ...event.payload, message: stand(event.payload.message, mode) ?? '' } };
    case 'session.started': {
      const { project, ...payload } = event.payload;
      const hashed = mode === 'hashes' && typeof project === 'string' ? { project: contentHash(project) } : {};
      const prefixes = mode === 'none' ? { globalPrefixHash: '', sessionPrefixHash: '' } : {};
      return { ...event, payload: { ...payload, ...hashed, ...prefixes } };
    }
    case 'request.assembled':
      if (mode === 'hashes') return event;
      return {
        ...event,
        payload: {
          ...event.payload,
          prefixHash: '',
          // Checked: an invalid event must reach the dead letters, not throw here.
          blockHashes: Array.isArray(event.payload.blockHashes)
            ? event.payload.blockHashes.map((block) => ({ ...block, hash: '' }))
            : event.payload.blockHashes,
        },
      };
    default:
      return event;
  }
}

/**
 * The store, writing every event (and dead letter) through `redactEvent` under `mode`; every
 * other method is the store's own. Under `full` the store itself is returned.
 *
 * @example
 * const store = withStoreContent(await openTraceStore(), 'hashes');
 */
export function withStoreContent<T extends TraceStore>(store: T, mode: StoreContent): T {
  if (mode === 'full') return store;
  const writers: Partial<Record<PropertyKey, unknown>> = {
    append: (event: CachetEvent) => store.append(redactEvent(event, mode)),
    appendBatch: (events: readonly CachetEvent[]) => store.appendBatch(events.map((event) => redactEvent(event, mode))),
    deadLetter: (entries: Parameters<TraceStore['deadLetter']>[0]) =>
      store.deadLetter(entries.map((entry) => ({ ...entry, event: redactUnknown(entry.event, mode) }))),
    storeContent: mode,
  };
  return new Proxy(store, {
    get(target, key) {
      if (key in writers) return writers[key];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A dead letter may be any shape: a known event is redacted as such, anything else hashed whole (or dropped under `none`). */
function redactUnknown(event: unknown, mode: StoreContent): unknown {
  const known =
    typeof event === 'object' &&
    event !== null &&
    typeof (event as { type?: unknown }).type === 'string' &&
    typeof (event as { payload?: unknown }).payload === 'object';
  if (known) return redactEvent(event as CachetEvent, mode);
  return mode === 'hashes' ? hashStrings(event) : null;
}

/**
 * A copy of a JSON value with every string replaced by its `contentHash`, except the few that
 * say what the body is (`model`, `role`, `type`): the shape, and so which block changed, survive;
 * the text does not. For captures under `hashes`.
 */
export function hashStrings(value: unknown, key: string | null = null): unknown {
  if (typeof value === 'string') return key === 'model' || key === 'role' || key === 'type' ? value : contentHash(value);
  if (Array.isArray(value)) return value.map((item) => hashStrings(item));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, hashStrings(item, name)]));
  }
  return value;
}

const CONTENT_HASH = /^sha256:[0-9a-f]{16}$/;

/**
 * Whether a captured body went through `hashStrings` (a capture under `hashes`): its first string
 * outside `model`, `role` and `type` is a `contentHash`. Such a body keeps no prompt text, so
 * anything modelled from it (token counts, a plan's cost) measures the hashes, not the prompts.
 */
export function isHashedBody(value: unknown): boolean {
  const text = firstText(value, null);
  return text !== undefined && CONTENT_HASH.test(text);
}

function firstText(value: unknown, key: string | null): string | undefined {
  if (typeof value === 'string') return key === 'model' || key === 'role' || key === 'type' ? undefined : value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = firstText(item, null);
      if (text !== undefined) return text;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [name, item] of Object.entries(value)) {
      const text = firstText(item, name);
      if (text !== undefined) return text;
    }
  }
  return undefined;
}
