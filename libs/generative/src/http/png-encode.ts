import { deflateSync } from 'node:zlib';
import type { PortPixels } from '@app/image-pipeline';

/**
 * A PNG of raw pixels, for the files HTTP generators take (masks of each protocol's polarity, composited init
 * images). libs/generative does not use sharp, so this is the whole encoder: 8-bit grey, RGB or RGBA, filter
 * `Up` on every row (flat masks and backdrops compress to almost nothing), zlib level 3 (a 1 MP RGB image in tens
 * of milliseconds).
 */
export function encodePng(pixels: PortPixels): Buffer {
  const { data, width, height, channels } = pixels;
  const stride = width * channels;
  if (data.length !== stride * height) {
    throw new Error(`encodePng: ${data.length} bytes for ${width}x${height}x${channels}`);
  }
  const filtered = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const out = y * (stride + 1);
    const row = y * stride;
    filtered[out] = 2; // Up: each byte minus the byte above it.
    if (y === 0) {
      filtered.set(data.subarray(0, stride), out + 1);
      continue;
    }
    for (let x = 0; x < stride; x += 1) filtered[out + 1 + x] = (data[row + x] - data[row - stride + x]) & 0xff;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = COLOUR_TYPES[channels];
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(filtered, { level: 3 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** PNG colour types: 0 grey, 2 RGB, 6 RGBA. */
const COLOUR_TYPES: Record<1 | 3 | 4, number> = { 1: 0, 3: 2, 4: 6 };

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (let index = 0; index < bytes.length; index += 1) crc = CRC_TABLE[(crc ^ bytes[index]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'ascii');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, tail]);
}
