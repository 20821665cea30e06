/**
 * Values known to be frozen all the way down. `Object.isFrozen` is shallow: a frozen block can
 * hold an object that is not, and a memo keyed by the block would then keep a reading of its
 * old contents. Memos that trust a value not to change ask `isDeepFrozen`, which walks a value
 * once and remembers the answer.
 */
const deepFrozenValues = new WeakSet<object>();

/** A base class whose constructor returns its argument: `DeepFrozenStamp` stamps the object it is given. */
class ReturnsGiven {
  constructor(value: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the private field below is added to the value returned here.
    return value;
  }
}

/**
 * The mark `freezeOverDeepFrozen` gives what it freezes, instead of the WeakSet: a reader that
 * freezes every parsed value bottom-up (analyze's capture reader) would otherwise add each to one
 * weak table holding the whole capture's history, about 1 µs per object plus the collector's work
 * on that table. A private field, stamped through a constructor that returns the object it is
 * given: nothing but `has` sees it (keys, symbols, JSON, spreads, `Object.assign`, proxies), and
 * adding it is an ordinary property store, where defining a non-enumerable symbol went through the
 * runtime (about 5 µs against 1 µs per capture line of three messages).
 */
class DeepFrozenStamp extends ReturnsGiven {
  readonly #deepFrozen = true;

  /** Stamps `value` (extensible, not yet frozen). */
  static stamp(value: object): void {
    new DeepFrozenStamp(value);
  }

  static has(value: object): boolean {
    return #deepFrozen in value;
  }
}

function knownDeepFrozen(value: object): boolean {
  return DeepFrozenStamp.has(value) || deepFrozenValues.has(value);
}

/**
 * Whether freezing `value` fixes what it holds: a plain object or an array. Freezing a `Date` does
 * not freeze its time (`setTime` still works), a `Map` keeps its entries open, and such values'
 * JSON is not their own keys (a Date has none): never known deep-frozen, nor anything holding one.
 */
function freezable(value: object): boolean {
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Freeze a value and everything inside it: persisted blocks are immutable by contract. A value
 * holding a non-plain object (a Date, a Map, a class instance) is frozen where it can be but never
 * counts as deep-frozen (`isDeepFrozen` stays false for it).
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') freezeAll(value);
  return value;
}

/** `deepFreeze`'s walk: whether `value` is now deep-frozen. */
function freezeAll(value: object): boolean {
  if (knownDeepFrozen(value)) return true;
  if (!freezable(value)) return false;
  Object.freeze(value);
  // Remembered before its members are walked, so a cycle ends here; forgotten if the walk fails.
  deepFrozenValues.add(value);
  let all = true;
  try {
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== null && typeof member === 'object' && !freezeAll(member)) all = false;
    }
  } catch (error) {
    deepFrozenValues.delete(value);
    throw error;
  }
  if (!all) deepFrozenValues.delete(value);
  return all;
}

/**
 * Freeze a value whose members are all deep-frozen already (a walk that freezes bottom-up) and
 * remember it as deep-frozen, without walking it again: by its stamp (a private field added
 * before it is frozen), or in the WeakSet when it can no longer take one.
 */
export function freezeOverDeepFrozen<T extends object>(value: T): T {
  if (Object.isExtensible(value)) DeepFrozenStamp.stamp(value);
  else deepFrozenValues.add(value);
  Object.freeze(value);
  return value;
}

/** True when `value` and everything inside it is frozen (primitives are). */
export function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (knownDeepFrozen(value)) return true;
  const visited = new Set<object>();
  if (!everyMemberFrozen(value, visited)) return false;
  // Remembered only once the whole value passed: a member of a cycle is then deep-frozen too.
  for (const member of visited) deepFrozenValues.add(member);
  return true;
}

function everyMemberFrozen(value: object, visited: Set<object>): boolean {
  if (knownDeepFrozen(value) || visited.has(value)) return true;
  if (!Object.isFrozen(value) || !freezable(value)) return false;
  visited.add(value);
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== null && typeof member === 'object' && !everyMemberFrozen(member, visited)) return false;
  }
  return true;
}
