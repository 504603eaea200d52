import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RawPixels } from '../workers/raw-pixels';
import { psnr } from '../../../../test/helpers/image-metrics';
import { blockiness, decompressKernel, measureBlocking } from './decompress.kernel';

const WIDTH = 320;
const HEIGHT = 240;
/** The hard vertical edge of the card: the white panel's left side, rows PANEL_TOP..PANEL_BOTTOM. */
const PANEL_LEFT = 203;
const PANEL_TOP = 21;
const PANEL_BOTTOM = 110;

/**
 * A smooth, detailed test card: colour gradients, a shaded disc, a white panel with a dark bar and rows
 * of glyph-like 2-pixel strokes, and a thin bright diagonal line. Edges avoid the 8x8 grid where they can.
 */
function testCard(): RawPixels {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      let rgb = [
        60 + 120 * (x / WIDTH) + 20 * Math.sin(y / 23),
        80 + 100 * (y / HEIGHT) + 25 * Math.cos(x / 31 + y / 47),
        150 - 70 * (x / WIDTH) + 30 * Math.sin((x + y) / 40),
      ];
      const disc = Math.hypot(x - 90, y - 150);
      if (disc < 50) rgb = [200 * (1 - disc / 60) + 30, 90 * (1 - disc / 60) + 20, 40];
      if (x >= PANEL_LEFT && x < 290 && y >= PANEL_TOP && y < PANEL_BOTTOM) rgb = [235, 235, 225];
      if (x >= PANEL_LEFT && x < 290 && y >= PANEL_BOTTOM && y < 118) rgb = [20, 20, 30];
      const [tx, ty] = [x - 213, y - 37];
      if (tx >= 0 && tx < 70 && ty >= 0 && ty < 14 && tx % 10 < 8) {
        const cell = tx % 10;
        const even = Math.floor(tx / 10) % 2 === 0;
        if (cell < 2 || ty < 2 || ty >= 12 || (even && ty >= 6 && ty < 8)) rgb = [15, 15, 20];
      }
      if (Math.abs(y - 0.5 * x - 120) < 1.2 && x < 180) rgb = [250, 250, 250];
      data.set(
        rgb.map((v) => Math.round(Math.min(255, Math.max(0, v)))),
        (y * WIDTH + x) * 3,
      );
    }
  }
  return { data, width: WIDTH, height: HEIGHT, channels: 3 };
}

/** The pixels after a JPEG round trip at `quality`, optionally cropped (left, top, width, height) and flopped. */
async function jpegRoundTrip(
  source: RawPixels,
  quality: number,
  crop?: { left: number; top: number; width: number; height: number },
  flop = false,
): Promise<RawPixels> {
  const raw = { width: source.width, height: source.height, channels: 3 as const };
  const jpeg = await sharp(source.data, { raw }).jpeg({ quality }).toBuffer();
  let decoded = sharp(await sharp(jpeg).raw().toBuffer(), { raw });
  if (crop) decoded = sharp(await decoded.extract(crop).raw().toBuffer(), { raw: { ...raw, ...crop } });
  if (flop) decoded = decoded.flop();
  const { data, info } = await decoded.raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: info.channels };
}

/** Mean over the panel's rows of the largest horizontal luma-ish step (channel sum / 3) near its left edge. */
function edgeStrength(image: RawPixels): number {
  const at = (x: number, y: number) => {
    const p = (y * image.width + x) * 3;
    return (image.data[p] + image.data[p + 1] + image.data[p + 2]) / 3;
  };
  let total = 0;
  for (let y = PANEL_TOP + 4; y < PANEL_BOTTOM - 4; y++) {
    let largest = 0;
    for (let x = PANEL_LEFT - 4; x < PANEL_LEFT + 4; x++)
      largest = Math.max(largest, Math.abs(at(x + 1, y) - at(x, y)));
    total += largest;
  }
  return total / (PANEL_BOTTOM - PANEL_TOP - 8);
}

const run = (image: RawPixels, strength: 'moderate' | 'strong') =>
  decompressKernel({ image: { ...image, data: image.data.slice() }, strength });

describe('decompressKernel', () => {
  const card = testCard();
  const jpegs = new Map<number, RawPixels>();

  beforeAll(async () => {
    for (const quality of [10, 25]) jpegs.set(quality, await jpegRoundTrip(card, quality));
  });

  it.each([10, 25])('reduces blocking and raises PSNR at quality %i, strong more than moderate', (quality) => {
    const jpeg = jpegs.get(quality)!;
    const moderate = run(jpeg, 'moderate');
    const strong = run(jpeg, 'strong');
    const figures = [jpeg, moderate, strong].map((image) => ({
      blockiness: blockiness(image),
      psnr: psnr(image, card),
    }));
    const show = (f: { blockiness: number; psnr: number }) => `${f.blockiness.toFixed(2)} / ${f.psnr.toFixed(2)} dB`;
    console.log(
      `decompress q${quality} blockiness / PSNR: ${['jpeg', 'moderate', 'strong'].map((name, i) => `${name} ${show(figures[i])}`).join(', ')}`,
    );
    const [before, afterModerate, afterStrong] = figures;
    expect(afterModerate.blockiness).toBeLessThan(before.blockiness - 0.2);
    expect(afterStrong.blockiness).toBeLessThan(afterModerate.blockiness);
    expect(afterModerate.psnr).toBeGreaterThan(before.psnr + 0.2);
    expect(afterStrong.psnr).toBeGreaterThan(afterModerate.psnr + 0.2);
  });

  it('keeps hard edges', () => {
    const jpeg = jpegs.get(10)!;
    const before = edgeStrength(jpeg);
    for (const strength of ['moderate', 'strong'] as const) {
      const after = edgeStrength(run(jpeg, strength));
      console.log(`decompress edge strength q10 ${strength}: ${before.toFixed(1)} -> ${after.toFixed(1)} levels`);
      expect(after).toBeGreaterThan(0.9 * before);
    }
  });

  it('leaves an image without JPEG blocks nearly as it was', () => {
    for (const strength of ['moderate', 'strong'] as const) {
      const unchanged = psnr(run(card, strength), card);
      console.log(`decompress on the clean card, ${strength}: ${unchanged.toFixed(1)} dB`);
      expect(unchanged).toBeGreaterThan(40);
    }
  });

  it('finds the grid of a JPEG cropped by 3 pixels before decoding, and of a flipped one', async () => {
    const crop = { left: 3, top: 3, width: WIDTH - 11, height: HEIGHT - 3 };
    const cropped = await jpegRoundTrip(card, 25, crop);
    // Blocks of the original start at 0, 8, ...: in the cropped image at 5, 13, ...
    expect(measureBlocking(cropped)).toMatchObject({ offsetX: 5, offsetY: 5 });
    const flopped = await jpegRoundTrip(card, 25, crop, true);
    // Mirrored, the boundary between columns 4 and 5 lies between columns width - 6 and width - 5.
    expect(measureBlocking(flopped)).toMatchObject({ offsetX: (crop.width - 5) % 8, offsetY: 5 });

    const clean = await sharp(card.data, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
      .extract(crop)
      .raw()
      .toBuffer();
    const source = { data: new Uint8Array(clean), width: crop.width, height: crop.height, channels: 3 };
    const [before, after] = [psnr(cropped, source), psnr(run(cropped, 'strong'), source)];
    console.log(`decompress q25 cropped by 3 px, strong: ${before.toFixed(2)} -> ${after.toFixed(2)} dB`);
    expect(after).toBeGreaterThan(before + 0.3);
  });

  it('deblocks grey images and copies the alpha channel', () => {
    const jpeg = jpegs.get(10)!;
    const grey = { data: new Uint8Array(WIDTH * HEIGHT * 2), width: WIDTH, height: HEIGHT, channels: 2 };
    for (let i = 0; i < WIDTH * HEIGHT; i++) {
      grey.data[2 * i] = jpeg.data[3 * i + 1];
      grey.data[2 * i + 1] = i % 251;
    }
    const out = run(grey, 'strong');
    expect(out.channels).toBe(2);
    expect(blockiness(out)).toBeLessThan(blockiness(grey) - 0.2);
    const alpha = (image: RawPixels) => Buffer.from(image.data.filter((_, i) => i % 2 === 1));
    expect(alpha(out).equals(alpha(grey))).toBe(true);
  });

  it('rejects pixels whose size does not match their bytes', () => {
    expect(() => run({ data: new Uint8Array(5), width: 4, height: 4, channels: 3 }, 'moderate')).toThrow(RangeError);
  });
});
