import { describe, expect, it } from 'vitest';
import type { AdjustPlan } from '../edit-plan';
import { adjust, contrastSlope, exposureGain } from './adjust.operation';
import { mean, pixels, ramp } from './test-images';

const NONE: AdjustPlan = { exposure: 0, saturation: 0, contrast: 0, sharpness: 0 };
const noPool = {
  run: () => {
    throw new Error('no kernel expected');
  },
};

async function adjusted(plan: Partial<AdjustPlan>) {
  return pixels(await adjust(ramp(64, 32), { ...NONE, ...plan }, noPool));
}

/** Spread of the values: standard deviation of the first channel. */
function spread(image: { data: Buffer; channels: number }): number {
  const values: number[] = [];
  for (let i = 0; i < image.data.length; i += image.channels) values.push(image.data[i]);
  const average = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - average) ** 2, 0) / values.length);
}

/** Mean distance of each pixel's channels from its grey: 0 for a grey image. */
function chroma(image: { data: Buffer; channels: number }): number {
  let sum = 0;
  for (let i = 0; i < image.data.length; i += image.channels) {
    const grey = (image.data[i] + image.data[i + 1] + image.data[i + 2]) / 3;
    sum += Math.abs(image.data[i] - grey) + Math.abs(image.data[i + 1] - grey) + Math.abs(image.data[i + 2] - grey);
  }
  return sum / (image.data.length / image.channels);
}

describe('adjust operation', () => {
  it('0 everywhere is the identity', async () => {
    const before = await pixels(ramp(64, 32));
    const after = await adjusted({});
    expect(after.data.equals(before.data)).toBe(true);
  });

  it('the mappings are 1 at 0 and monotonic', () => {
    expect(exposureGain(0)).toBe(1);
    expect(contrastSlope(0)).toBeCloseTo(1, 12);
    for (let v = -100; v < 100; v += 10) {
      expect(exposureGain(v + 10)).toBeGreaterThan(exposureGain(v));
      expect(contrastSlope(v + 10)).toBeGreaterThan(contrastSlope(v));
    }
  });

  it('exposure brightens and darkens in order', async () => {
    const means = [];
    for (const exposure of [-100, -50, 0, 50, 100]) means.push(mean(await adjusted({ exposure })));
    for (let i = 1; i < means.length; i++) expect(means[i]).toBeGreaterThan(means[i - 1]);
  });

  it('contrast spreads and narrows the values in order', async () => {
    const spreads = [];
    for (const contrast of [-100, -40, 0, 40, 80]) spreads.push(spread(await adjusted({ contrast })));
    for (let i = 1; i < spreads.length; i++) expect(spreads[i]).toBeGreaterThan(spreads[i - 1]);
  });

  it('saturation moves chroma in order; -100 is grey', async () => {
    const sharp = (await import('sharp')).default;
    const width = 32;
    const height = 8;
    const data = Buffer.alloc(width * height * 3);
    for (let i = 0; i < width * height; i++) data.set([200, 120, 60], i * 3);
    const chromas = [];
    for (const saturation of [-100, -50, 0, 50]) {
      const stage = {
        image: sharp(data, { raw: { width, height, channels: 3 } }),
        width,
        height,
        hasAlpha: false,
        fresh: true,
      };
      chromas.push(chroma(await pixels(await adjust(stage, { ...NONE, saturation }, noPool))));
    }
    expect(chromas[0]).toBeLessThan(2);
    for (let i = 1; i < chromas.length; i++) expect(chromas[i]).toBeGreaterThan(chromas[i - 1]);
  });

  it('sharpness raises edge contrast in order', async () => {
    const edges = [];
    for (const sharpness of [0, 30, 100]) {
      const image = await adjusted({ sharpness });
      let sum = 0;
      for (let y = 0; y < image.height; y++) {
        const row = y * image.width * image.channels;
        for (let x = 1; x < image.width; x++) {
          sum += Math.abs(image.data[row + x * 3] - image.data[row + (x - 1) * 3]);
        }
      }
      // the ramp's halves meet at y = 16: that edge is what sharpening accentuates
      let across = 0;
      for (let x = 0; x < image.width; x++) {
        across += Math.abs(image.data[(15 * image.width + x) * 3] - image.data[(16 * image.width + x) * 3]);
      }
      edges.push(across + sum / 100);
    }
    expect(edges[1]).toBeGreaterThan(edges[0]);
    expect(edges[2]).toBeGreaterThan(edges[1]);
  });

  it('exposure and contrast come before saturation, as documented (not in the internal order of sharp)', async () => {
    const sharp = (await import('sharp')).default;
    const width = 8;
    const height = 8;
    const data = Buffer.alloc(width * height * 3);
    for (let i = 0; i < width * height; i++) data.set([170, 120, 95], i * 3);
    const fresh = () => ({
      image: sharp(data, { raw: { width, height, channels: 3 as const } }),
      width,
      height,
      hasAlpha: false,
      fresh: true,
    });
    const both = await pixels(await adjust(fresh(), { ...NONE, contrast: 60, saturation: -80 }, noPool));
    const toned = await pixels(await adjust(fresh(), { ...NONE, contrast: 60 }, noPool));
    const stage = {
      image: sharp(toned.data, { raw: { width, height, channels: 3 as const } }),
      width,
      height,
      hasAlpha: false,
      fresh: true,
    };
    const expected = await pixels(await adjust(stage, { ...NONE, saturation: -80 }, noPool));
    expect([...both.data.subarray(0, 3)]).toEqual([...expected.data.subarray(0, 3)]);
  });
});
