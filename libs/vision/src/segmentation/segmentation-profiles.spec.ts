import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type SegmentationProfileName } from '@app/common';
import { profileModel } from '../../../../test/fixtures/onnx-models';
import { SEGMENTATION_PROFILE } from './segmentation-profiles';
import { U2NetSegmenter } from './segmentation.model';

/**
 * Each segmentation profile end to end through the real ONNX worker, with a small model of that family's input
 * and output shapes (test/fixtures/onnx-models.ts, profileModel): the input name and size, which output is the
 * mask, the normalisation and the sigmoid are proven against a mask the test computes by rembg's recipe, without
 * the real weights (docs/models.md says how to install them).
 *
 * The families' exports, as rembg's sessions read them: U2-Net and U2-Netp take 1x3x320x320 and answer seven maps
 * (d0..d6), the first the fused one, already through a sigmoid; IS-Net (isnet-general-use) takes 1x3x1024x1024 and
 * answers its side outputs, the first the final map, also through a sigmoid; BiRefNet takes 1x3x1024x1024 and
 * answers logits (rembg applies the sigmoid). Their statistics, written here apart from the service's table so that
 * a wrong entry there shows: ImageNet's mean and std for U2-Net and BiRefNet, mean 0.5 and std 1 for IS-Net.
 */
const IMAGENET = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
const FAMILIES: Record<
  SegmentationProfileName,
  { input: string; outputs: string[]; logits: boolean; mean: number[]; std: number[] }
> = {
  u2net: { input: 'input.1', outputs: ['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6'], logits: false, ...IMAGENET },
  isnet: {
    input: 'input_image',
    outputs: ['output_image', 'side1', 'side2', 'side3', 'side4', 'side5'],
    logits: false,
    mean: [0.5, 0.5, 0.5],
    std: [1, 1, 1],
  },
  birefnet: { input: 'input_image', outputs: ['output_image'], logits: true, ...IMAGENET },
};

/** A grey ramp, dark at the left to light at the right, at `width` x `height`: each column one value. */
function ramp(width: number, height: number): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++)
      rgb.fill(Math.round(20 + (200 * x) / (width - 1)), (y * width + x) * 3, (y * width + x) * 3 + 3);
  }
  return rgb;
}

/**
 * The mask rembg's recipe gives for the made-up model, computed here independently of the service's code: each
 * value divided by the brightest, then (v - mean) / std per channel, the mean over channels, the model's f, the
 * sigmoid for logits, then stretched to 0..255 between its minimum and maximum.
 */
function expectedMask(rgb: Uint8Array, name: SegmentationProfileName): number[] {
  const { mean, std } = FAMILIES[name];
  const max = rgb.reduce((a, b) => Math.max(a, b), 0);
  const values: number[] = [];
  for (let p = 0; p < rgb.length / 3; p++) {
    let m = 0;
    for (let c = 0; c < 3; c++) m += (rgb[p * 3 + c] / max - mean[c]) / std[c] / 3;
    values.push(FAMILIES[name].logits ? 1 / (1 + Math.exp(-4 * m)) : Math.max(0, m));
  }
  const low = values.reduce((a, b) => Math.min(a, b), Infinity);
  const high = values.reduce((a, b) => Math.max(a, b), -Infinity);
  return values.map((v) => Math.round(((v - low) / (high - low)) * 255));
}

describe('segmentation profiles, each with a model of its family’s shape', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'atelier-profiles-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  for (const name of Object.keys(FAMILIES) as SegmentationProfileName[]) {
    it(`${name}: reads the right output, normalises as the family wants and answers the mask at its size`, async () => {
      const profile = SEGMENTATION_PROFILE[name];
      const { width, height } = profile.size;
      const bytes = profileModel({ ...FAMILIES[name], size: profile.size, mapIndex: profile.outputIndex });
      const path = join(scratch, `${name}.onnx`);
      await writeFile(path, bytes);
      const segmenter = U2NetSegmenter.fromConfig(
        loadConfig({
          SEGMENTATION_MODEL: path,
          SEGMENTATION_MODEL_SHA256: createHash('sha256').update(bytes).digest('hex'),
          SEGMENTATION_PROFILE: name,
        }),
      );
      try {
        expect(segmenter.inputSize).toEqual({ width, height });
        const rgb = ramp(width, height);
        const mask = await segmenter.mask({ data: rgb, width, height, channels: 3 }, 'general');
        expect([mask.width, mask.height, mask.channels]).toEqual([width, height, 1]);
        const expected = expectedMask(rgb, name);
        let worst = 0;
        for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(mask.data[i] - expected[i]));
        expect(worst, `largest difference from rembg's recipe (levels)`).toBeLessThanOrEqual(1);
        // light at the right: the map, not its opposite
        expect(mask.data[width - 1]).toBe(255);
        expect(mask.data[0]).toBe(0);
      } finally {
        await segmenter.runner.close();
      }
    }, 60_000);
  }

  it('tells the profiles apart: a u2net mask is not what the isnet profile answers for the same map', () => {
    const rgb = ramp(64, 1);
    const u2net = expectedMask(rgb, 'u2net');
    const isnet = expectedMask(rgb, 'isnet');
    // the knee (where the normalised value crosses 0) sits at another column for other means and stds
    expect(u2net.findIndex((v) => v > 0)).not.toBe(isnet.findIndex((v) => v > 0));
  });
});
