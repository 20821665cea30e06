/**
 * Values known to be frozen all the way down. `Object.isFrozen` is shallow: a frozen block can
 * hold an object that is not, and a memo keyed by the block would then keep a reading of its
 * old contents. Memos that trust a value not to change ask `isDeepFrozen`, which walks a value
 * once and remembers the answer.
 */
const deepFrozenValues = new WeakSet<object>();

/** Freeze a value and everything inside it: persisted blocks are immutable by contract. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || deepFrozenValues.has(value)) return value;
  Object.freeze(value);
  // Remembered before its members are walked, so a cycle ends here; forgotten if the walk fails.
  deepFrozenValues.add(value);
  try {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  } catch (error) {
    deepFrozenValues.delete(value);
    throw error;
  }
  return value;
}

/**
 * Freeze a value whose members are all deep-frozen already (a walk that freezes bottom-up) and
 * remember it as deep-frozen, without walking it again.
 */
export function freezeOverDeepFrozen<T extends object>(value: T): T {
  Object.freeze(value);
  deepFrozenValues.add(value);
  return value;
}

/** True when `value` and everything inside it is frozen (primitives are). */
export function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (deepFrozenValues.has(value)) return true;
  const visited = new Set<object>();
  if (!everyMemberFrozen(value, visited)) return false;
  // Remembered only once the whole value passed: a member of a cycle is then deep-frozen too.
  for (const member of visited) deepFrozenValues.add(member);
  return true;
}

function everyMemberFrozen(value: object, visited: Set<object>): boolean {
  if (deepFrozenValues.has(value) || visited.has(value)) return true;
  if (!Object.isFrozen(value)) return false;
  visited.add(value);
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== null && typeof member === 'object' && !everyMemberFrozen(member, visited)) return false;
  }
  return true;
}
