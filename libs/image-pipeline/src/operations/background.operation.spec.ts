import { loadConfig } from '@app/common';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlurBackgroundPlan, EditPlan, RemoveBackgroundPlan, SubjectPlan } from '../edit-plan';
import { ImagePipeline } from '../image-pipeline';
import { blurBackground } from './background-blur.operation';
import { removeBackground } from './background-removal.operation';
import { BACKGROUND_COLOUR, discScene, OBJECT_COLOUR, SceneSegmenter, type Scene } from './background-scene';
import { registerStep } from './registered-steps';

const GENERAL: SubjectPlan = { category: 'general', largestOnly: false };
const PNG: Pick<EditPlan, 'encode' | 'colour'> = {
  encode: { format: 'png', compression: 'fast' },
  colour: { space: 'auto' },
};

// libs/editing's background operation registers the step that runs these kernels; here one that runs only them
registerStep<BackgroundParts>({
  name: 'background',
  phase: 'background',
  assumes8BitSrgb: true,
  materialises: true,
  crops: true,
  run: (stage, part, context) =>
    part.removeBackground
      ? removeBackground(stage, part.removeBackground, context)
      : blurBackground(stage, part.blurBackground!, context),
});

interface BackgroundParts {
  removeBackground?: RemoveBackgroundPlan;
  blurBackground?: BlurBackgroundPlan;
}

async function run(scene: Scene, part: BackgroundParts, steps: Pick<EditPlan, 'flatten'> = {}) {
  const pipeline = new ImagePipeline(loadConfig({}), new SceneSegmenter(scene));
  try {
    const plan: EditPlan = { ...PNG, ...steps, operations: { background: part } };
    const result = await pipeline.run(scene.png, await pipeline.probe(scene.png), plan);
    const { data, info } = await sharp(result.data).raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels };
  } finally {
    await pipeline.onApplicationShutdown();
  }
}

/** Soft IoU of two alphas 0..1: sum of minima over sum of maxima. */
function iou(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    inter += Math.min(a[i], b[i]);
    union += Math.max(a[i], b[i]);
  }
  return inter / union;
}

/**
 * How much of the old background's colour an edge pixel still holds: its colour C projected on the line from the
 * object's colour F to the background's B, t = (C - F).(B - F) / |B - F|^2 (0: pure object, 1: pure background).
 */
function backgroundShare(colour: number[]): number {
  const fb = BACKGROUND_COLOUR.map((b, c) => b - OBJECT_COLOUR[c]);
  const cf = colour.map((v, c) => v - OBJECT_COLOUR[c]);
  return cf.reduce((sum, v, c) => sum + v * fb[c], 0) / fb.reduce((sum, v) => sum + v * v, 0);
}

/** Variance of the 4-neighbour Laplacian of the green channel over the pixels `where` accepts. */
function laplacianVariance(
  image: { data: Buffer | Uint8Array; width: number; channels: number },
  where: (x: number, y: number) => boolean,
  height: number,
): number {
  const values: number[] = [];
  const g = (x: number, y: number) => image.data[(y * image.width + x) * image.channels + 1];
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < image.width - 1; x++) {
      if (!where(x, y)) continue;
      values.push(4 * g(x, y) - g(x - 1, y) - g(x + 1, y) - g(x, y - 1) - g(x, y + 1));
    }
  }
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
}

describe('background removal (through ImagePipeline.run, with a segmenter answering the true mask)', () => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await discScene(480, 360, [{ cx: 230, cy: 170, r: 110 }]);
  });

  it('cuts the object out: alpha close to the truth, edges following the image', async () => {
    const out = await run(scene, { removeBackground: { subject: GENERAL, clipping: false } });
    expect([out.width, out.height, out.channels]).toEqual([480, 360, 4]);
    const alpha = Float32Array.from({ length: 480 * 360 }, (_, i) => out.data[i * 4 + 3] / 255);
    expect(iou(alpha, scene.alpha)).toBeGreaterThan(0.97);
  });

  it('leaves none of the old background colour in the edge band', async () => {
    const out = await run(scene, {
      removeBackground: { subject: { category: 'products', largestOnly: false }, clipping: false },
    });
    const shares: number[] = [];
    for (let i = 0; i < scene.alpha.length; i++) {
      const a = out.data[i * 4 + 3];
      // the edge band: partly transparent pixels that are at least 20% object
      if (a < 51 || a === 255) continue;
      shares.push(backgroundShare([...out.data.subarray(i * 4, i * 4 + 3)]));
    }
    expect(shares.length).toBeGreaterThan(100);
    const meanShare = shares.reduce((a, b) => a + b, 0) / shares.length;
    expect(meanShare).toBeLessThan(0.1);
  });

  it("clipping crops to the object's box, its soft edge included", async () => {
    const products = await run(scene, {
      removeBackground: { subject: { category: 'products', largestOnly: false }, clipping: true },
    });
    // the disc spans 220 px (2 r) from x = 120 and y = 60
    expect(Math.abs(products.width - 220)).toBeLessThanOrEqual(3);
    expect(Math.abs(products.height - 220)).toBeLessThanOrEqual(3);
    // general keeps a softer edge, a few pixels wider
    const general = await run(scene, { removeBackground: { subject: GENERAL, clipping: true } });
    expect(general.width - 220).toBeGreaterThanOrEqual(0);
    expect(general.width - 220).toBeLessThanOrEqual(8);
  });

  it('flattens onto the background colour when one is planned', async () => {
    const white = { r: 255, g: 255, b: 255, alpha: 1 };
    const out = await run(scene, { removeBackground: { subject: GENERAL, clipping: false } }, { flatten: white });
    expect(out.channels).toBe(3);
    expect([...out.data.subarray(0, 3)]).toEqual([255, 255, 255]);
  });

  it('selective keeps only the most salient connected object', async () => {
    const two = await discScene(480, 360, [
      { cx: 160, cy: 180, r: 100 },
      { cx: 400, cy: 120, r: 40 },
    ]);
    const out = await run(two, {
      removeBackground: { subject: { category: 'general', largestOnly: true }, clipping: true },
    });
    expect(out.width - 200).toBeLessThanOrEqual(8);
    expect(out.height - 200).toBeLessThanOrEqual(8);
    expect(out.width - 200).toBeGreaterThanOrEqual(0);
  });
});

describe('background blur (through ImagePipeline.run)', () => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await discScene(480, 360, [{ cx: 230, cy: 170, r: 110 }]);
  });
  const inside = (x: number, y: number) => Math.hypot(x - 230, y - 170) < 100;
  const farOutside = (x: number, y: number) => Math.hypot(x - 230, y - 170) > 140;

  for (const kind of ['gaussian', 'lens'] as const) {
    it(`${kind}: the object stays sharp, the background is blurred, no halo`, async () => {
      const out = await run(scene, { blurBackground: { subject: GENERAL, kind, radius: 6 } });
      expect([out.width, out.height, out.channels]).toEqual([480, 360, 3]);
      const before = { data: scene.rgb, width: 480, channels: 3 };
      const sharpBefore = laplacianVariance(before, inside, 360);
      const sharpAfter = laplacianVariance(out, inside, 360);
      expect(Math.abs(sharpAfter - sharpBefore) / sharpBefore).toBeLessThan(0.02);
      expect(laplacianVariance(out, farOutside, 360)).toBeLessThan(0.1 * laplacianVariance(before, farOutside, 360));
      // just outside the object (3..8 px) the colour is the background's, not the object's orange
      const ring: number[] = [];
      for (let y = 0; y < 360; y++) {
        for (let x = 0; x < 480; x++) {
          const d = Math.hypot(x + 0.5 - 230, y + 0.5 - 170);
          if (d > 113 && d < 118)
            ring.push(backgroundShare([...out.data.subarray((y * 480 + x) * 3, (y * 480 + x) * 3 + 3)]));
        }
      }
      expect(ring.reduce((a, b) => a + b, 0) / ring.length).toBeGreaterThan(0.9);
    });
  }
});

afterAll(() => undefined);
