import { describe, expect, it } from 'vitest';
import type { RawPixels } from '../workers/raw-pixels';
import { boxMean, guidedFilter, type Plane } from './guided-filter';
import { backgroundColour } from './background-colour';
import { decontaminateKernel, keepComponents, matteKernel, supportBox } from './matte.kernel';

function plane(width: number, height: number, value: (x: number, y: number) => number): Plane {
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = value(x, y);
  return { data, width, height };
}

function rgb(width: number, height: number, colour: (x: number, y: number) => number[]): RawPixels {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(colour(x, y), (y * width + x) * 3);
  return { data, width, height, channels: 3 };
}

/** Columns over which row `y` of `p` rises from 10% to 90% of its range. */
function riseWidth(p: Plane, y: number): number {
  const row = [...p.data.subarray(y * p.width, (y + 1) * p.width)];
  return row.filter((v) => v > 0.1 && v < 0.9).length;
}

describe('boxMean', () => {
  it('is the mean over the window clipped at the borders', () => {
    const p = plane(7, 5, (x, y) => x * 10 + y);
    const out = boxMean(p, 2);
    const brute = (cx: number, cy: number) => {
      const values: number[] = [];
      for (let y = Math.max(0, cy - 2); y <= Math.min(4, cy + 2); y++) {
        for (let x = Math.max(0, cx - 2); x <= Math.min(6, cx + 2); x++) values.push(x * 10 + y);
      }
      return values.reduce((a, b) => a + b, 0) / values.length;
    };
    for (const [x, y] of [
      [0, 0],
      [3, 2],
      [6, 4],
      [1, 3],
    ])
      expect(out.data[y * 7 + x]).toBeCloseTo(brute(x, y), 4);
  });
});

describe('guidedFilter', () => {
  // the guide has a hard edge at x = 32; the mask is the same edge blurred over 16 px (an upsampled coarse mask)
  const edge = plane(64, 16, (x) => (x < 32 ? 0.2 : 0.8));
  const guide = [edge, edge, edge] as const;
  const blurry = plane(64, 16, (x) => Math.min(1, Math.max(0, (x - 24) / 16)));

  it("moves the blurry mask's rise onto the edge of the guide", () => {
    const q = guidedFilter(guide, blurry, 8, 1e-4);
    const step = (p: Plane, x: number) => p.data[8 * 64 + x] - p.data[8 * 64 + x - 1];
    // the input rises 1/16 per pixel; the output jumps by about half its range at the guide's edge
    expect(step(blurry, 32)).toBeCloseTo(1 / 16, 5);
    expect(step(q, 32)).toBeGreaterThan(0.4);
    expect(q.data[8 * 64 + 31]).toBeLessThan(0.3);
    expect(q.data[8 * 64 + 32]).toBeGreaterThan(0.7);
  });

  it("with a category's contrast band, gives an edge a few pixels wide where the mask was 16", () => {
    const image = rgb(64, 16, (x) => (x < 32 ? [51, 51, 51] : [204, 204, 204]));
    const coarse = Uint8Array.from(blurry.data, (v) => Math.round(v * 255));
    const { alpha } = matteKernel({
      image,
      coarse: { data: coarse, width: 64, height: 16, channels: 1 },
      category: 'products',
      largestOnly: false,
      coarsePixel: 4,
    });
    const row = [...alpha.data.subarray(8 * 64, 9 * 64)];
    expect(row.filter((a) => a > 0 && a < 255).length).toBeLessThanOrEqual(4);
    expect(row.slice(0, 32).every((a) => a === 0)).toBe(true);
    expect(row[32]).toBeGreaterThan(200);
    expect(row.slice(36).every((a) => a === 255)).toBe(true);
  });

  it('follows an edge of hue alone (two colours of the same luminance)', () => {
    // orange and green of equal Rec. 709 luma: a luminance guide would see no edge
    const red = plane(64, 16, (x) => (x < 32 ? 0.8 : 0.1));
    const green = plane(64, 16, (x) => (x < 32 ? 0.3 : 0.5147));
    const blue = plane(64, 16, () => 0.2);
    const q = guidedFilter([red, green, blue], blurry, 8, 1e-4);
    expect(q.data[8 * 64 + 32] - q.data[8 * 64 + 31]).toBeGreaterThan(0.4);
  });

  it('fitted on a subsampled grid (the fast guided filter), keeps the edge where the guide has it', () => {
    const q = guidedFilter(guide, blurry, 8, 1e-4, 3);
    expect(q.data[8 * 64 + 32] - q.data[8 * 64 + 31]).toBeGreaterThan(0.35);
  });

  it('keeps the mask smooth where the guide is flat (no edge to follow)', () => {
    const flat = plane(64, 16, () => 0.5);
    const q = guidedFilter([flat, flat, flat], blurry, 8, 1e-4);
    expect(riseWidth(q, 8)).toBeGreaterThan(10);
  });
});

describe('matteKernel on a small object', () => {
  it('works on the box around it and places the answer where the object is', () => {
    // a 40 px disc at (520, 300) on 640 x 400: its box widened by the refinement's reach is under a third of the
    // image, so only that part is worked on
    const width = 640;
    const height = 400;
    const inside = (x: number, y: number) => Math.hypot(x - 520, y - 300) <= 40;
    const image = rgb(width, height, (x, y) => (inside(x, y) ? [200, 60, 40] : [30 + (x % 7), 120, 150]));
    const coarse = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) coarse[y * width + x] = inside(x, y) ? 255 : 0;
    const { alpha, box } = matteKernel({
      image,
      coarse: { data: coarse, width, height, channels: 1 },
      category: 'products',
      largestOnly: false,
      coarsePixel: 1,
    });
    let wrong = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const d = Math.hypot(x - 520, y - 300);
        const a = alpha.data[y * width + x];
        if ((d < 38 && a < 250) || (d > 42 && a > 0)) wrong++;
      }
    }
    expect(wrong).toBe(0);
    expect(box).toEqual({ left: 480, top: 260, width: 81, height: 81 });
  });
});

describe('decontamination', () => {
  const object = [200, 40, 30];
  const tint = [40, 90, 220];
  const width = 32;
  // alpha falls from 255 to 0 across the image; every pixel mixes the object's colour with the background's
  const alpha = Uint8Array.from({ length: width * 4 }, (_, i) => Math.round(255 * (1 - (i % width) / (width - 1))));
  const mixed = rgb(width, 4, (x) =>
    object.map((f, c) => Math.round((alpha[x] / 255) * f + (1 - alpha[x] / 255) * tint[c])),
  );

  it('removes a known background tint from the edge pixels', () => {
    const background = rgb(4, 1, () => tint);
    const out = decontaminateKernel({
      image: mixed,
      alpha: { data: alpha, width, height: 4, channels: 1 },
      background,
    });
    for (let x = 0; x < width; x++) {
      const a = alpha[x];
      expect(out.data[x * 4 + 3]).toBe(a);
      // below about 10% alpha 8-bit rounding of the mix dominates; those pixels contribute little either way
      if (a < 26) continue;
      for (let c = 0; c < 3; c++) expect(Math.abs(out.data[x * 4 + c] - object[c])).toBeLessThanOrEqual(6);
    }
  });

  it('estimates the local background colour from the clearly-background pixels', () => {
    const image = rgb(40, 10, (x) => (x < 20 ? tint : object));
    const matte = Uint8Array.from({ length: 400 }, (_, i) => (i % 40 < 20 ? 0 : 255));
    const estimate = backgroundColour(image, matte, 3);
    // right of the boundary (object) the nearest background is the tint
    expect([...estimate.data.subarray((5 * 40 + 21) * 3, (5 * 40 + 21) * 3 + 3)]).toEqual(tint);
    // deep inside the object, far beyond any background: the image's own colour
    expect([...estimate.data.subarray((5 * 40 + 39) * 3, (5 * 40 + 39) * 3 + 3)]).toEqual(object);
  });
});

describe('components and box', () => {
  /** A 40 x 20 alpha with a large block, a smaller block and a one-pixel speck. */
  function blobs(): Uint8Array {
    const alpha = new Uint8Array(40 * 20);
    const fill = (x0: number, y0: number, w: number, h: number) => {
      for (let y = y0; y < y0 + h; y++) alpha.fill(255, y * 40 + x0, y * 40 + x0 + w);
    };
    fill(2, 2, 12, 12);
    fill(20, 4, 5, 5);
    fill(35, 15, 1, 1);
    return alpha;
  }
  const count = (alpha: Uint8Array) => alpha.filter((a) => a > 0).length;

  it('drops parts lighter than the share of the heaviest', () => {
    const alpha = blobs();
    keepComponents(alpha, 40, 20, 0.02);
    expect(count(alpha)).toBe(144 + 25);
  });

  it('keeps only the heaviest part with share 1 (selective)', () => {
    const alpha = blobs();
    keepComponents(alpha, 40, 20, 1);
    expect(count(alpha)).toBe(144);
    expect(supportBox({ data: alpha, width: 40, height: 20, channels: 1 })).toEqual({
      left: 2,
      top: 2,
      width: 12,
      height: 12,
    });
  });

  it('has no box when nothing is kept', () => {
    expect(supportBox({ data: new Uint8Array(100), width: 10, height: 10, channels: 1 })).toBeUndefined();
  });
});
