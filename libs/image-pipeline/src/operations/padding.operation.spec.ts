import { describe, expect, it } from 'vitest';
import { flattenOnto } from './flatten.operation';
import { pad } from './padding.operation';
import { at, pixels, quadrants } from './test-images';

describe('padding and background', () => {
  it('adds each side in pixels, filled with the colour', async () => {
    const fill = { r: 255, g: 255, b: 255, alpha: 1 };
    const out = await pixels(await pad(await quadrants(40, 20), { top: 1, right: 2, bottom: 3, left: 4 }, fill));
    expect([out.width, out.height, out.channels]).toEqual([46, 24, 3]);
    expect(at(out, 0, 0)).toEqual([255, 255, 255]);
    expect(at(out, 4, 1)).toEqual([255, 0, 0]); // the image's top-left corner
    expect(at(out, 43, 20)).toEqual([255, 255, 255]); // bottom-right quadrant (white) ends at x 43, y 20
    expect(at(out, 44, 21)).toEqual([255, 255, 255]);
  });

  it('keeps transparency around a transparent image', async () => {
    const out = await pixels(
      await pad(await quadrants(10, 10, 0.5), { top: 2, right: 2, bottom: 2, left: 2 }, { r: 0, g: 0, b: 0, alpha: 0 }),
    );
    expect(out.channels).toBe(4);
    expect(at(out, 0, 0)[3]).toBe(0);
    expect(at(out, 3, 3)[3]).toBe(128);
  });

  it('flattens transparent pixels onto the background colour', async () => {
    const out = await pixels(await flattenOnto(await quadrants(10, 10, 0.5), { r: 0, g: 0, b: 255, alpha: 1 }));
    expect(out.channels).toBe(3);
    // red at 50% over blue
    const [r, g, b] = at(out, 1, 1);
    expect(Math.abs(r - 128)).toBeLessThanOrEqual(2);
    expect(g).toBeLessThanOrEqual(2);
    expect(Math.abs(b - 127)).toBeLessThanOrEqual(2);
  });
});
