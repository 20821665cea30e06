import { deflateSync } from 'node:zlib';
import { SeededRandom } from './seeded-random.js';

/**
 * A valid PNG of the given size whose pixels are a deterministic pattern seeded by `seed`
 * (a few coloured bands, like a UI screenshot's layout). Real PNG bytes let token counters
 * read the dimensions from the header the way providers do.
 *
 * @example
 * const base64 = syntheticPng(1280, 800, 'cms/t4/hero.png').toString('base64');
 */
export function syntheticPng(width: number, height: number, seed: string): Buffer {
  const random = new SeededRandom(seed);
  const bands = Array.from({ length: random.int(3, 7) }, () => ({
    until: random.next(),
    colour: [random.int(0, 255), random.int(0, 255), random.int(0, 255)] as const,
  })).sort((left, right) => left.until - right.until);
  const rowBytes = width * 3 + 1;
  const raw = Buffer.alloc(rowBytes * height);
  for (let row = 0; row < height; row++) {
    const position = row / height;
    const band = bands.find((candidate) => position <= candidate.until) ?? bands.at(-1)!;
    const offset = row * rowBytes;
    raw[offset] = 0;
    for (let column = 0; column < width; column++) {
      raw[offset + 1 + column * 3] = band.colour[0];
      raw[offset + 2 + column * 3] = band.colour[1];
      raw[offset + 3 + column * 3] = band.colour[2];
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData), 0);
  return Buffer.concat([length, typeAndData, crc]);
}

let crcTable: Uint32Array | undefined;

function crc32(bytes: Buffer): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let index = 0; index < 256; index++) {
      let value = index;
      for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
      crcTable[index] = value >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
