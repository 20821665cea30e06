import { describe, expect, it } from 'vitest';
import { CHUNK_SIZE, ChunkedList } from './chunked-list.js';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);

describe('ChunkedList', () => {
  it('reads like the array it holds, negative indexes and out-of-range reads included', () => {
    const values = range(0, 1300);
    const list = ChunkedList.of(values);
    expect(list.length).toBe(1300);
    expect(list.toArray()).toEqual(values);
    expect(list.at(0)).toBe(0);
    expect(list.at(511)).toBe(511);
    expect(list.at(512)).toBe(512);
    expect(list.at(-1)).toBe(1299);
    expect(list.at(1300)).toBeUndefined();
    expect(list.at(-1301)).toBeUndefined();
  });

  it('shares the storage of what it repeats and leaves every earlier list as it was', () => {
    const first = ChunkedList.of(range(0, 1100));
    // Appending at the end: the last chunk takes the entries in place.
    const longer = first.extend().done();
    const grown = (() => {
      const builder = first.extend();
      for (const value of range(1100, 1200)) builder.push(value);
      return builder.done();
    })();
    expect(grown.sharesStorageAt(first, 0)).toBe(true);
    expect(grown.sharesStorageAt(first, 1099)).toBe(true);
    // A list parting from `first` inside its last chunk copies that chunk (the grown list reads past the point).
    const parted = first.extend(1050);
    for (const value of range(0, 30)) parted.push(-value);
    const other = parted.done();
    expect(other.sharesStorageAt(first, 0)).toBe(true);
    expect(other.sharesStorageAt(first, 1049)).toBe(false);
    expect(first.toArray()).toEqual(range(0, 1100));
    expect(longer.toArray()).toEqual(range(0, 1100));
    expect(grown.toArray()).toEqual(range(0, 1200));
    expect(other.toArray()).toEqual([...range(0, 1050), ...range(0, 30).map((value) => -value)]);
    expect(other.sharedStorageEnd(first, 3)).toBe(CHUNK_SIZE);
    expect(other.sharedStorageEnd(first, 1049)).toBe(1049);
  });

  it('copies at most 64 entries when a list parts from another (a session part from its last request on every request)', () => {
    // A 200-message conversation's next request parts from the last one near its end: the list
    // copies the chunk holding that point, which lives until the conversation's next request.
    expect(CHUNK_SIZE).toBe(64);
    const first = ChunkedList.of(range(0, 1000));
    for (const parting of [999, 990, 960, 700, 64]) {
      const builder = first.extend(parting);
      builder.push(-1);
      const parted = builder.done();
      const copiedFrom = parting - (parting % 64);
      if (copiedFrom > 0) expect(parted.sharesStorageAt(first, copiedFrom - 1)).toBe(true);
      if (parting % 64 > 0) expect(parted.sharesStorageAt(first, copiedFrom)).toBe(false);
      expect(parted.toArray()).toEqual([...range(0, parting), -1]);
      expect(first.toArray()).toEqual(range(0, 1000));
    }
  });

  it('copies a shared chunk before replacing an entry in it', () => {
    const first = ChunkedList.of(range(0, 700));
    const builder = first.extend();
    builder.set(3, -3);
    builder.set(4, 4);
    const second = builder.done();
    expect(first.at(3)).toBe(3);
    expect(second.at(3)).toBe(-3);
    expect(second.sharesStorageAt(first, 0)).toBe(false);
    expect(second.sharesStorageAt(first, 600)).toBe(true);
    expect(() => first.extend().set(700, 1)).toThrow(RangeError);
  });
});
