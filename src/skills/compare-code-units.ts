/** Locale-independent string order, so every machine sorts skills the same way. */
export function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
