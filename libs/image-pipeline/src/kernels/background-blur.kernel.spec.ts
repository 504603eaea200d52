import { describe, expect, it } from 'vitest';
import { backgroundBlurKernel, discSum, gaussianMean } from './background-blur.kernel';

describe('blur kernels', () => {
  it('gaussianMean spreads an impulse with about the asked sigma', () => {
    const width = 101;
    const data = new Float32Array(width * width);
    data[50 * width + 50] = 1;
    const out = gaussianMean({ data, width, height: width }, 6).data;
    let variance = 0;
    let total = 0;
    for (let x = 0; x < width; x++) {
      total += out[50 * width + x];
      variance += out[50 * width + x] * (x - 50) ** 2;
    }
    expect(Math.sqrt(variance / total)).toBeGreaterThan(5);
    expect(Math.sqrt(variance / total)).toBeLessThan(7);
  });

  it('discSum of ones is the disc area inside the image', () => {
    const data = new Float32Array(41 * 41).fill(1);
    const out = discSum({ data, width: 41, height: 41 }, 10).data;
    expect(Math.abs(out[20 * 41 + 20] - Math.PI * 100) / (Math.PI * 100)).toBeLessThan(0.05);
    // a corner sees a quarter of it
    expect(Math.abs(out[0] - (Math.PI * 100) / 4) / ((Math.PI * 100) / 4)).toBeLessThan(0.15);
  });

  it('leaves the object out of the background blur (no halo of its colour)', () => {
    // a red square object on a grey background
    const size = 64;
    const image = new Uint8Array(size * size * 3);
    const mask = new Uint8Array(size * size);
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const inside = x >= 20 && x < 44 && y >= 20 && y < 44;
        image.set(inside ? [230, 20, 20] : [120, 120, 120], (y * size + x) * 3);
        mask[y * size + x] = inside ? 255 : 0;
      }
    }
    for (const kind of ['gaussian', 'lens'] as const) {
      const out = backgroundBlurKernel({
        image: { data: image, width: size, height: size, channels: 3 },
        mask: { data: mask, width: size, height: size, channels: 1 },
        kind,
        radius: 6,
      });
      // just outside the object the background stays grey, and under the object's border too
      for (const x of [18, 19, 21]) {
        const p = (32 * size + x) * 3;
        expect(Math.abs(out.data[p] - out.data[p + 1])).toBeLessThanOrEqual(2);
      }
    }
  });

  it('lens blooms a small highlight into a bright disc', () => {
    const size = 64;
    const image = new Uint8Array(size * size * 3).fill(60);
    // a 3 x 3 clipped highlight
    for (let y = 31; y <= 33; y++)
      for (let x = 31; x <= 33; x++) image.fill(255, (y * size + x) * 3, (y * size + x) * 3 + 3);
    const run = (kind: 'gaussian' | 'lens') =>
      backgroundBlurKernel({
        image: { data: image.slice(), width: size, height: size, channels: 3 },
        mask: { data: new Uint8Array(size * size), width: size, height: size, channels: 1 },
        kind,
        radius: 8,
      });
    const lens = run('lens');
    const gaussian = run('gaussian');
    const at = (x: number, y: number) => (y * size + x) * 3;
    // 6 px from the centre, inside the disc: clearly brighter with the lens than a plain blur gives
    expect(lens.data[at(38, 32)]).toBeGreaterThan(gaussian.data[at(38, 32)] + 30);
    // the disc is flat: about as bright near its rim as near its centre
    expect(Math.abs(lens.data[at(38, 32)] - lens.data[at(33, 32)])).toBeLessThan(25);
  });

  it('keeps an evenly bright background as bright as it was (a pale wall does not bloom to white)', () => {
    const size = 48;
    for (const value of [200, 235, 245, 252]) {
      const out = backgroundBlurKernel({
        image: { data: new Uint8Array(size * size * 3).fill(value), width: size, height: size, channels: 3 },
        mask: { data: new Uint8Array(size * size), width: size, height: size, channels: 1 },
        kind: 'lens',
        radius: 6,
      });
      for (const p of [0, (24 * size + 24) * 3, out.data.length - 3])
        expect(Math.abs(out.data[p] - value)).toBeLessThanOrEqual(1);
    }
  });

  it('adds no hue where a bright area meets a dark one (each pixel a mix of the two)', () => {
    const size = 48;
    const wall = [245, 238, 225];
    const table = [170, 120, 80];
    const image = new Uint8Array(size * size * 3);
    for (let i = 0; i < size * size; i++) image.set(i < (size * size) / 2 ? wall : table, i * 3);
    const out = backgroundBlurKernel({
      image: { data: image, width: size, height: size, channels: 3 },
      mask: { data: new Uint8Array(size * size), width: size, height: size, channels: 1 },
      kind: 'lens',
      radius: 6,
    });
    // Blue against red along the column across the edge stays between the wall's and the table's ratios.
    const ratio = (rgb: number[]) => rgb[2] / rgb[0];
    for (let y = 0; y < size; y++) {
      const p = (y * size + 24) * 3;
      const r = ratio([out.data[p], out.data[p + 1], out.data[p + 2]]);
      expect(r).toBeGreaterThanOrEqual(ratio(table) - 0.02);
      expect(r).toBeLessThanOrEqual(ratio(wall) + 0.02);
    }
  });
});
