import { describe, expect, it } from 'vitest';
import type { RawPixels } from '../workers/raw-pixels';
import { colourCosts, fitColourModel } from './colour-model';

/** A deterministic value in -1..1. */
function hash(i: number, c: number): number {
  const h = Math.sin(i * 12.9898 + c * 78.233) * 43758.5453;
  return 2 * (h - Math.floor(h)) - 1;
}

/** `count` pixels of each colour, each channel jittered by up to +-`jitter` levels (deterministically). */
function pixels(colours: number[][], count: number, jitter: number): RawPixels {
  const data = new Uint8Array(colours.length * count * 3);
  let at = 0;
  for (const colour of colours) {
    for (let i = 0; i < count; i++)
      for (let c = 0; c < 3; c++) data[at++] = colour[c] + Math.round(jitter * hash(i, c));
  }
  return { data, width: colours.length * count, height: 1, channels: 3 };
}

const costsOf = (model: ReturnType<typeof fitColourModel>, colours: number[][]) => {
  const image = pixels(colours, 1, 0);
  const out = new Float32Array(colours.length);
  colourCosts(model!, image, new Uint8Array(colours.length).fill(1), out);
  return [...out];
};

describe('fitColourModel and colourCosts', () => {
  it('models two clusters: their own colours cost little, a colour between and one far away cost more', () => {
    const image = pixels(
      [
        [200, 40, 40],
        [40, 60, 200],
      ],
      500,
      6,
    );
    const model = fitColourModel(image, new Uint8Array(image.width).fill(1), 5);
    const [red, blue, between, green] = costsOf(model, [
      [200, 40, 40],
      [40, 60, 200],
      [120, 50, 120],
      [40, 220, 40],
    ]);
    expect(Math.abs(red - blue)).toBeLessThan(1);
    expect(between).toBeGreaterThan(red + 20);
    expect(green).toBeGreaterThan(between);
  });

  it('orders pixels between a foreground and a background model as their colours say', () => {
    const fg = fitColourModel(pixels([[220, 180, 60]], 400, 10), new Uint8Array(400).fill(1));
    const bg = fitColourModel(pixels([[130, 125, 120]], 400, 25), new Uint8Array(400).fill(1));
    const [goldFg, greyFg] = costsOf(fg, [
      [225, 175, 65],
      [125, 130, 118],
    ]);
    const [goldBg, greyBg] = costsOf(bg, [
      [225, 175, 65],
      [125, 130, 118],
    ]);
    expect(goldFg).toBeLessThan(goldBg);
    expect(greyBg).toBeLessThan(greyFg);
  });

  it('gives a finite cost for a perfectly flat colour (no singular covariance) and none for nothing selected', () => {
    const flat = pixels([[244, 244, 246]], 300, 0);
    const model = fitColourModel(flat, new Uint8Array(300).fill(1));
    const [same, near] = costsOf(model, [
      [244, 244, 246],
      [250, 244, 246],
    ]);
    expect(Number.isFinite(same)).toBe(true);
    expect(near).toBeGreaterThan(same);
    expect(fitColourModel(flat, new Uint8Array(300))).toBeUndefined();
  });
});
