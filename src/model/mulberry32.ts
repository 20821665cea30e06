/**
 * A small seeded generator (mulberry32, public domain): floats in [0, 1), the same sequence for
 * the same seed on every run and machine. Generated workloads, sessions, captures and the attack
 * tests' hostile inputs draw from it so they are reproducible.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
