import { describe, expect, it } from 'vitest';
import { renderScene } from './render-scene';
import { ValueNoise } from './seeded-noise';
import { surfaceTexture } from './surface-texture';

/** The texture of `surface` sampled on an n x n grid over one canvas width: [brightness, accent] per point. */
function field(surface: 'marble' | 'wood', n = 240, seed = 9): { shade: Float64Array; accent: Float64Array } {
  const texture = surfaceTexture(surface, new ValueNoise(seed), 5);
  const shade = new Float64Array(n * n);
  const accent = new Float64Array(n * n);
  const out = new Float64Array(2);
  for (let y = 0; y < n; y++)
    for (let x = 0; x < n; x++) {
      texture.sample(x / n, y / n, x, y, out);
      shade[y * n + x] = out[0];
      accent[y * n + x] = out[1];
    }
  return { shade, accent };
}

describe('surfaces', () => {
  it('marble: thin veins that come and go (some areas veined, others clear), not evenly spread contour lines', () => {
    for (const seed of [3, 9, 21]) {
      const n = 240;
      const { accent } = field('marble', n, seed);
      const veined = (i: number) => accent[i] > 0.2;
      let total = 0;
      const blocks: number[] = [];
      const side = n / 4;
      for (let by = 0; by < 4; by++)
        for (let bx = 0; bx < 4; bx++) {
          let count = 0;
          for (let y = by * side; y < (by + 1) * side; y++)
            for (let x = bx * side; x < (bx + 1) * side; x++) count += veined(y * n + x) ? 1 : 0;
          blocks.push(count / (side * side));
          total += count;
        }
      const share = total / (n * n);
      expect(share, `seed ${seed}: veins cover ${share}`).toBeGreaterThan(0.01);
      expect(share).toBeLessThan(0.12);
      // how unevenly the veins are spread over 16 blocks: the coefficient of variation of their cover
      const mean = blocks.reduce((a, b) => a + b, 0) / blocks.length;
      const spread = Math.sqrt(blocks.reduce((a, b) => a + (b - mean) ** 2, 0) / blocks.length) / mean;
      expect(spread, `seed ${seed}: cover per block ${blocks.map((b) => b.toFixed(3))}`).toBeGreaterThan(0.5);
    }
  });

  it('wood: growth rings across each board (light earlywood, dark latewood), running along it', () => {
    const n = 240;
    const { accent } = field('wood', n);
    // across the middle of the first board (u 0.02..0.15) at three depths: several dark bands each time
    for (const y of [40, 120, 200]) {
      let bands = 0;
      let dark = false;
      for (let x = 5; x < 36; x++) {
        const now = accent[y * n + x] > 0.2;
        if (now && !dark) bands += 1;
        dark = now;
      }
      expect(bands, `row ${y}`).toBeGreaterThanOrEqual(2);
    }
    // along the board the figure changes slowly: neighbouring rows differ much less than neighbouring columns
    let alongBoard = 0;
    let acrossBoard = 0;
    for (let y = 1; y < n; y++)
      for (let x = 1; x < 38; x++) {
        alongBoard += Math.abs(accent[y * n + x] - accent[(y - 1) * n + x]);
        acrossBoard += Math.abs(accent[y * n + x] - accent[y * n + x - 1]);
      }
    expect(alongBoard).toBeLessThan(acrossBoard * 0.5);
  });

  it('a warm light keeps a white studio white; its warmth shows where the light falls off', () => {
    const W = 320;
    const object = new Uint8Array(W * W * 4);
    for (let y = 100; y <= 280; y++) for (let x = 130; x <= 190; x++) object.set([200, 40, 40, 255], (y * W + x) * 4);
    const { data } = renderScene({
      width: W,
      height: W,
      object,
      background: { kind: 'prompt' },
      prompt: 'white studio, warm light',
      preference: 'optimal',
      seed: 1,
      variant: 0,
    });
    const backdrop: [number, number, number][] = [];
    for (let y = 0; y < W; y++)
      for (let x = 0; x < W; x++)
        if (x < 110 || x > 210)
          backdrop.push([data[(y * W + x) * 3], data[(y * W + x) * 3 + 1], data[(y * W + x) * 3 + 2]]);
    const luminance = (p: number[]) => 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
    backdrop.sort((a, b) => luminance(b) - luminance(a));
    const warmth = (list: number[][]) => list.reduce((sum, p) => sum + p[0] - p[2], 0) / list.length;
    const brightest = warmth(backdrop.slice(0, backdrop.length / 5));
    const darkest = warmth(backdrop.slice((backdrop.length * 4) / 5));
    expect(brightest, 'red minus blue in the brightest fifth').toBeLessThan(12);
    expect(darkest).toBeGreaterThan(brightest + 4);
  });
});
