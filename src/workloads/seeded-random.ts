import { createHash } from 'node:crypto';
import { mulberry32 } from '../model/mulberry32.js';

/**
 * A small seeded generator (mulberry32) for workload content: the same seed text gives the
 * same sequence on every run and machine, so generated tool results are byte-stable.
 */
export class SeededRandom {
  /** A float in [0, 1). */
  readonly next: () => number;

  constructor(seed: string) {
    this.next = mulberry32(createHash('sha256').update(seed).digest().readUInt32LE(0));
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  hex(length: number): string {
    let text = '';
    while (text.length < length) text += Math.floor(this.next() * 16).toString(16);
    return text;
  }
}
