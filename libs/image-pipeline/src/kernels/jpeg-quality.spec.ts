import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decompressStrengthFor, estimateJpegQuality } from './jpeg-quality';

/** A small gradient with some texture; the quantisation tables do not depend on the content. */
const source = () => {
  const data = Buffer.alloc(64 * 48 * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7 + ((i * 2654435761) >>> 28)) % 256;
  return sharp(data, { raw: { width: 64, height: 48, channels: 3 } });
};

/** The offset of the first DQT marker (FF DB) in a JPEG. */
const dqtAt = (jpeg: Buffer) => jpeg.indexOf(Buffer.from([0xff, 0xdb]));

describe('estimateJpegQuality', () => {
  it.each([5, 10, 25, 50, 75, 85, 95, 100])('reads quality %i from a JPEG sharp wrote', async (quality) => {
    const jpeg = await source().jpeg({ quality }).toBuffer();
    expect(Math.abs(estimateJpegQuality(jpeg)! - quality)).toBeLessThanOrEqual(2);
  });

  it('reads progressive and 4:4:4 JPEGs', async () => {
    const progressive = await source().jpeg({ quality: 60, progressive: true }).toBuffer();
    const full = await source().jpeg({ quality: 40, chromaSubsampling: '4:4:4' }).toBuffer();
    expect(estimateJpegQuality(progressive)).toBe(60);
    expect(estimateJpegQuality(full)).toBe(40);
  });

  it('reads 16-bit tables', async () => {
    const jpeg = await source().jpeg({ quality: 30 }).toBuffer();
    const at = dqtAt(jpeg);
    const length = jpeg.readUInt16BE(at + 2);
    // Rewrite the first table (id 0, 8-bit) as a 16-bit one with the same steps.
    const steps = jpeg.subarray(at + 5, at + 5 + 64);
    const table = Buffer.concat([Buffer.from([0x10]), Buffer.from(Array.from(steps).flatMap((step) => [0, step]))]);
    const segment = Buffer.concat([Buffer.from([0xff, 0xdb, 0, 2 + table.length]), table]);
    const rest = Buffer.concat([
      Buffer.from([0xff, 0xdb]),
      Buffer.alloc(2),
      jpeg.subarray(at + 5 + 64, at + 2 + length),
    ]);
    rest.writeUInt16BE(length - 65, 2);
    const rewritten = Buffer.concat([jpeg.subarray(0, at), segment, rest, jpeg.subarray(at + 2 + length)]);
    expect(rewritten[at + 4]).toBe(0x10);
    expect(estimateJpegQuality(rewritten)).toBe(30);
  });

  it('gives undefined for other formats, truncated headers and JPEGs without tables', async () => {
    expect(estimateJpegQuality(await source().png().toBuffer())).toBeUndefined();
    expect(estimateJpegQuality(new Uint8Array(0))).toBeUndefined();
    const jpeg = await source().jpeg({ quality: 50 }).toBuffer();
    expect(estimateJpegQuality(jpeg.subarray(0, dqtAt(jpeg) + 10))).toBeUndefined();
    // The tables after the first scan do not count: only SOI, then SOS.
    expect(estimateJpegQuality(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xdb, 0, 67, 0]))).toBeUndefined();
  });
});

describe('decompressStrengthFor', () => {
  it.each([
    [undefined, undefined],
    [100, undefined],
    [85, undefined],
    [84, 'moderate'],
    [50, 'moderate'],
    [49, 'strong'],
    [10, 'strong'],
    [1, 'strong'],
  ])('quality %s -> %s', (quality, strength) => {
    expect(decompressStrengthFor(quality)).toBe(strength);
  });
});
