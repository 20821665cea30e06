import { describe, expect, it } from 'vitest';
import { TwoGenerationMap } from './two-generation-map.js';

describe('TwoGenerationMap', () => {
  it('keeps at most two generations, and an entry read lately survives the next turnover', () => {
    const map = new TwoGenerationMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3); // a and b become the old generation
    expect(map.size).toBe(3);
    expect(map.get('a')).toBe(1); // read: moves up beside c, which fills the current generation
    map.set('d', 4); // {c, a} become old; b is dropped
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
    expect(map.get('d')).toBe(4);
    expect(map.size).toBeLessThanOrEqual(4);
  });

  it('never holds more than twice the generation size', () => {
    const map = new TwoGenerationMap<number, number>(5);
    for (let key = 0; key < 100; key++) {
      map.set(key, key);
      expect(map.size).toBeLessThanOrEqual(10);
    }
    expect(map.get(99)).toBe(99);
    expect(map.get(0)).toBeUndefined();
  });
});
