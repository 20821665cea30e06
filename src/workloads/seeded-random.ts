import { createHash } from 'node:crypto';

/**
 * A small seeded generator (mulberry32) for workload content: the same seed text gives the
 * same sequence on every run and machine, so generated tool results are byte-stable.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: string) {
    this.state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let value = this.state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
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
