import { describe, expect, it } from 'vitest';
import { resize } from './resize.operation';
import { at, pixels, quadrants } from './test-images';

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

function near(actual: number[], expected: number[], tolerance = 3): void {
  expected.forEach((value, i) => expect(Math.abs(actual[i] - value)).toBeLessThanOrEqual(tolerance));
}

describe('resize operation', () => {
  it('scales to the exact size and keeps the quadrants in place', async () => {
    const out = await pixels(await resize(await quadrants(200, 100), { mode: 'scale', width: 100, height: 50 }));
    expect([out.width, out.height]).toEqual([100, 50]);
    near(at(out, 10, 10), RED);
    near(at(out, 90, 10), GREEN);
    near(at(out, 10, 40), BLUE);
    near(at(out, 90, 40), WHITE);
  });

  it('crop at the centre covers the box and cuts the sides', async () => {
    // 200x100 into 50x50: scaled to 100x50, then the middle 50 columns are kept
    const out = await pixels(
      await resize(await quadrants(200, 100), { mode: 'crop', width: 50, height: 50, position: 'center' }),
    );
    expect([out.width, out.height]).toEqual([50, 50]);
    near(at(out, 2, 2), RED);
    near(at(out, 47, 2), GREEN);
    near(at(out, 2, 47), BLUE);
    near(at(out, 47, 47), WHITE);
  });

  it('smart crop keeps the most interesting region', async () => {
    // a flat grey image with a detailed patch on its right: the crop moves to the patch
    const sharp = (await import('sharp')).default;
    const width = 300;
    const height = 100;
    const data = Buffer.alloc(width * height * 3, 128);
    for (let y = 20; y < 80; y++) {
      for (let x = 230; x < 290; x++) data.set((x + y) % 4 < 2 ? [250, 30, 30] : [20, 20, 240], (y * width + x) * 3);
    }
    const stage = {
      image: sharp(data, { raw: { width, height, channels: 3 } }),
      width,
      height,
      hasAlpha: false,
      fresh: true,
    };
    const out = await pixels(await resize(stage, { mode: 'crop', width: 100, height: 100, position: 'smart' }));
    expect([out.width, out.height]).toEqual([100, 100]);
    const centre = await pixels(
      await resize(
        { image: sharp(data, { raw: { width, height, channels: 3 } }), width, height, hasAlpha: false, fresh: true },
        { mode: 'crop', width: 100, height: 100, position: 'center' },
      ),
    );
    const colourful = (image: typeof out) => {
      let count = 0;
      for (let i = 0; i < image.data.length; i += 3) if (Math.abs(image.data[i] - image.data[i + 2]) > 100) count++;
      return count;
    };
    expect(colourful(centre)).toBe(0);
    expect(colourful(out)).toBeGreaterThan(2000);
  });

  it('canvas centres the image unchanged on a filled canvas', async () => {
    const out = await pixels(
      await resize(await quadrants(40, 20), {
        mode: 'canvas',
        width: 100,
        height: 60,
        inner: { width: 40, height: 20 },
        fill: { r: 10, g: 20, b: 30, alpha: 1 },
      }),
    );
    expect([out.width, out.height, out.channels]).toEqual([100, 60, 3]);
    near(at(out, 0, 0), [10, 20, 30], 0);
    near(at(out, 99, 59), [10, 20, 30], 0);
    near(at(out, 31, 21), RED, 0); // the image starts at (30, 20)
    near(at(out, 69, 39), WHITE, 0);
  });

  it('canvas fills with transparency when the fill is transparent', async () => {
    const out = await pixels(
      await resize(await quadrants(40, 20), {
        mode: 'canvas',
        width: 60,
        height: 20,
        inner: { width: 40, height: 20 },
        fill: { r: 0, g: 0, b: 0, alpha: 0 },
      }),
    );
    expect(out.channels).toBe(4);
    expect(at(out, 0, 0)[3]).toBe(0);
    expect(at(out, 30, 10)[3]).toBe(255);
  });
});
