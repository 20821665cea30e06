import { describe, expect, it } from 'vitest';
import { createBodySlabs, isLent, SLAB_BODY_FROM_BYTES } from './body-slabs.js';

const SIZE = 100 * 1024;

describe('createBodySlabs', () => {
  it('lends slabs only for bodies of the pooled sizes', () => {
    const slabs = createBodySlabs();
    expect(slabs.take(SLAB_BODY_FROM_BYTES - 1)).toBeNull();
    expect(slabs.take(64 * 1024 * 1024)).toBeNull();
    const lease = slabs.take(SIZE)!;
    expect(lease.bytes.byteLength).toBe(SIZE);
    expect(isLent(lease.bytes)).toBe(true);
    expect(isLent(Buffer.alloc(SIZE))).toBe(false);
  });

  it('gives a slab out again only once every holder released it, and then the same memory', () => {
    const slabs = createBodySlabs();
    const first = slabs.take(SIZE)!;
    const front = first.hold();
    const transport = first.hold();
    front();
    front(); // a second call of one holder's release counts once
    const during = slabs.take(SIZE)!;
    expect(during.bytes.buffer).not.toBe(first.bytes.buffer);
    expect(slabs.freeBytes).toBe(0);
    transport();
    expect(slabs.freeBytes).toBeGreaterThanOrEqual(SIZE);
    const after = slabs.take(SIZE - 10)!;
    expect(after.bytes.buffer).toBe(first.bytes.buffer);
    expect(after.bytes.byteLength).toBe(SIZE - 10);
    expect(slabs.freeBytes).toBe(0);
  });

  it('returns a slab once, even when a holder comes after the last release', () => {
    const slabs = createBodySlabs();
    const lease = slabs.take(SIZE)!;
    lease.hold()();
    const late = lease.hold();
    late();
    // Returned twice, the one slab would be lent to two bodies at once.
    const first = slabs.take(SIZE)!;
    const second = slabs.take(SIZE)!;
    expect(second.bytes.buffer).not.toBe(first.bytes.buffer);
  });

  it('keeps at most 16 MB of free slabs', () => {
    const slabs = createBodySlabs();
    const leases = Array.from({ length: 12 }, () => slabs.take(2 * 1024 * 1024)!);
    for (const lease of leases) lease.hold()();
    expect(slabs.freeBytes).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(slabs.freeBytes).toBeGreaterThan(8 * 1024 * 1024);
  });
});
