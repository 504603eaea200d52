import { describe, expect, it } from 'vitest';
import type { RawPixels } from '../workers/raw-pixels';
import { hdrKernel } from './hdr.kernel';

/** Deterministic texture: -amplitude..amplitude from (x, y), so fixtures are the same on every run. */
function texture(x: number, y: number, amplitude: number): number {
  const h = Math.imul(x * 374761393 + y * 668265263, 1274126177) >>> 0;
  return ((h % 1000) / 999 - 0.5) * 2 * amplitude;
}

/** An RGB(A) or grey image whose grey value at (x, y) is `value(x, y)`, 0..255. */
function image(width: number, height: number, channels: number, value: (x: number, y: number) => number): RawPixels {
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = Math.round(Math.min(255, Math.max(0, value(x, y))));
      const p = (y * width + x) * channels;
      data.fill(v, p, p + Math.min(channels, 3));
      if (channels === 2 || channels === 4) data[p + channels - 1] = (x * 7 + y * 3) % 256;
    }
  }
  return { data, width, height, channels };
}

/** Mean of channel 0 over columns [x0, x1) of every row. */
function columnMean(pixels: RawPixels, x0: number, x1: number): number {
  let sum = 0;
  for (let y = 0; y < pixels.height; y++) {
    for (let x = x0; x < x1; x++) sum += pixels.data[(y * pixels.width + x) * pixels.channels];
  }
  return sum / (pixels.height * (x1 - x0));
}

const run = (source: RawPixels, intensity: number, stitching = false) =>
  hdrKernel({ image: { ...source, data: source.data.slice() }, intensity, stitching });

/** A dark textured left half (about 35) and a bright textured right half (about 225, some pixels 255). */
const halves = image(256, 128, 3, (x, y) =>
  x < 128 ? 35 + texture(x, y, 12) : x % 16 === 0 ? 255 : 225 + texture(x, y, 12),
);

describe('hdrKernel', () => {
  it('returns the input bytes at intensity 0', () => {
    const out = run(halves, 0);
    expect(Buffer.from(out.data).equals(Buffer.from(halves.data))).toBe(true);
    expect([out.width, out.height, out.channels]).toEqual([256, 128, 3]);
  });

  it('lifts the dark half more with each intensity and keeps the bright half and white', () => {
    const means = [0, 25, 50, 100].map((intensity) => {
      const out = run(halves, intensity);
      const whiteLost = halves.data.filter((value, i) => value === 255 && out.data[i] !== 255).length;
      expect(whiteLost).toBe(0);
      return { dark: columnMean(out, 0, 120), bright: columnMean(out, 136, 256) };
    });
    console.log(
      'hdr dark/bright means at 0, 25, 50, 100:',
      means.map((m) => `${m.dark.toFixed(1)}/${m.bright.toFixed(1)}`),
    );
    for (let i = 1; i < means.length; i++) expect(means[i].dark).toBeGreaterThan(means[i - 1].dark + 5);
    for (const m of means) expect(Math.abs(m.bright - means[0].bright)).toBeLessThan(2);
  });

  it('makes no halo at a sharp dark/bright edge', () => {
    const out = run(halves, 100);
    const lift = (x0: number, x1: number) => columnMean(out, x0, x1) - columnMean(halves, x0, x1);
    // Dark pixels touching the edge are lifted like the dark pixels far from it (a blurred local average
    // would see the bright side and lift them much less: a dark band along the edge).
    console.log(
      `hdr lift at 100: dark beside the edge ${lift(124, 128).toFixed(1)}, far ${lift(0, 32).toFixed(1)}; bright beside ${lift(128, 132).toFixed(2)}`,
    );
    expect(lift(124, 128)).toBeGreaterThan(0.9 * lift(0, 32));
    // Bright pixels touching the edge stay as they were (a blurred average would brighten them: a glow).
    expect(Math.abs(lift(128, 132))).toBeLessThan(2);
  });

  it('introduces no clipping: a bright spot in a dark area stays below white', () => {
    const spot = image(128, 128, 3, (x, y) => (Math.hypot(x - 64, y - 64) < 3 ? 235 : 20 + texture(x, y, 6)));
    const out = run(spot, 100);
    expect(out.data[(64 * 128 + 64) * 3]).toBeGreaterThanOrEqual(235);
    expect(out.data[(64 * 128 + 64) * 3]).toBeLessThan(252);
  });

  it('keeps colour ratios', () => {
    const colour = image(64, 64, 3, () => 0);
    for (let p = 0; p < colour.data.length; p += 3) colour.data.set([60, 30, 15], p);
    const out = run(colour, 100);
    const [r, g, b] = out.data.subarray(32 * 64 * 3, 32 * 64 * 3 + 3);
    expect(r).toBeGreaterThan(90);
    expect(g / r).toBeCloseTo(0.5, 2);
    expect(b / r).toBeCloseTo(0.25, 1);
  });

  it('joins the left and right edges of a 360 panorama without a seam when stitching', () => {
    // Columns 0 and 511 are neighbours in the panorama (a full sine period): dark around the left third,
    // bright around the right third, equal at the edges.
    const width = 512;
    const panorama = image(
      width,
      256,
      3,
      (x, y) => 128 - 90 * Math.sin((2 * Math.PI * (x + 0.5)) / width) + texture(x, y, 4),
    );
    const seam = (out: RawPixels) => Math.abs(columnMean(out, 0, 1) - columnMean(out, width - 1, width));
    const input = seam(panorama);
    const stitched = seam(run(panorama, 100, true));
    const unstitched = seam(run(panorama, 100, false));
    console.log(
      `hdr seam (mean |first - last column|): input ${input.toFixed(2)}, stitching ${stitched.toFixed(2)}, without ${unstitched.toFixed(2)}`,
    );
    expect(stitched).toBeLessThan(input + 1.5);
    expect(stitched).toBeLessThan(unstitched / 3);
  });

  it('leaves the alpha channel as it was', () => {
    const rgba = image(96, 64, 4, (x, y) => 30 + texture(x, y, 10));
    const out = run(rgba, 80);
    const alpha = (image: RawPixels) => Buffer.from(image.data.filter((_, i) => i % 4 === 3));
    expect(alpha(out).equals(alpha(rgba))).toBe(true);
    expect(columnMean(out, 0, 96)).toBeGreaterThan(columnMean(rgba, 0, 96) + 20);
  });

  it('tone-maps grey images (1 and 2 channels)', () => {
    for (const channels of [1, 2]) {
      const grey = image(128, 64, channels, (x, y) => (x < 64 ? 30 : 220) + texture(x, y, 8));
      const out = run(grey, 100);
      expect(out.channels).toBe(channels);
      expect(columnMean(out, 0, 60)).toBeGreaterThan(columnMean(grey, 0, 60) + 30);
      expect(Math.abs(columnMean(out, 68, 128) - columnMean(grey, 68, 128))).toBeLessThan(2);
    }
  });

  it('rejects pixels whose size does not match their bytes', () => {
    expect(() =>
      hdrKernel({
        image: { data: new Uint8Array(10), width: 4, height: 4, channels: 3 },
        intensity: 50,
        stitching: false,
      }),
    ).toThrow(RangeError);
  });
});
