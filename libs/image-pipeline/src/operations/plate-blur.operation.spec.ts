import { loadConfig } from '@app/common';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import type { EditPlan } from '../edit-plan';
import { ImagePipeline } from '../image-pipeline';
import type { RawImage } from '../ports/segmenter.port';
import { TextDetector, type TextRegion } from '../ports/text-detector.port';
import { blurPlates } from './plate-blur.operation';
import { registerStep } from './registered-steps';

/**
 * The plate blur step in the pipeline, with a stand-in for the model (allowed here: this is the spec of the step's
 * scaling and mapping, not of text detection, which libs/vision's spec and the HTTP spec test on the real model).
 * The image is 3000 x 2000 with a plate at a known place; the stand-in answers, in the pixels of the image it was
 * given, the plate's characters' box scaled the same way, and records the size it was given.
 */
const W = 3000;
const H = 2000;
/** The plate 1000..1600 x 900..1028; its characters' box 1050..1550 x 915..1013 (full-size pixels). */
const CHARACTERS = { left: 1050, top: 915, right: 1550, bottom: 1013 };

class StandIn extends TextDetector {
  readonly maxSide = 960;
  seen: { width: number; height: number }[] = [];
  async detect(rgb: RawImage): Promise<TextRegion[]> {
    this.seen.push({ width: rgb.width, height: rgb.height });
    const sx = rgb.width / W;
    const sy = rgb.height / H;
    const { left, top, right, bottom } = CHARACTERS;
    return [
      {
        points: [
          { x: left * sx, y: top * sy },
          { x: right * sx, y: top * sy },
          { x: right * sx, y: bottom * sy },
          { x: left * sx, y: bottom * sy },
        ],
        score: 0.9,
      },
    ];
  }
}

async function scene(): Promise<Buffer> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="#4d6b88"/>` +
    '<rect x="1000" y="900" width="600" height="128" fill="#f6f6f1" stroke="#111" stroke-width="8"/>' +
    '<text x="1300" y="1000" font-family="DejaVu Sans Mono" font-weight="bold" font-size="110" text-anchor="middle" fill="#111">AB 123</text></svg>';
  return sharp(Buffer.from(svg)).removeAlpha().png({ compressionLevel: 1 }).toBuffer();
}

// libs/editing's privacy operation registers the step that runs the kernel; here one that runs only it
registerStep({
  name: 'plates',
  phase: 'privacy',
  assumes8BitSrgb: true,
  materialises: true,
  run: (stage, _part, context) => blurPlates(stage, context),
});
const PLAN: EditPlan = {
  operations: { plates: {} },
  encode: { format: 'png', compression: 'fast' },
  colour: { space: 'auto' },
};

describe('the car plate blur step', () => {
  const pipelines: ImagePipeline[] = [];
  afterAll(() => Promise.all(pipelines.map((pipeline) => pipeline.onApplicationShutdown())));

  it('detects at the detector’s working size and blurs the plate at full size, where it is', async () => {
    const detector = new StandIn();
    const pipeline = new ImagePipeline(loadConfig({}), undefined, undefined, detector);
    pipelines.push(pipeline);
    const png = await scene();
    const result = await pipeline.run(png, await pipeline.probe(png), PLAN);
    expect([result.width, result.height]).toEqual([W, H]);
    expect(detector.seen).toEqual([{ width: 960, height: 640 }]);
    const before = await sharp(png).raw().toBuffer();
    const after = await sharp(result.data).raw().toBuffer();
    const changedIn = (x0: number, y0: number, x1: number, y1: number) => {
      let changed = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) if (before[(y * W + x) * 3] !== after[(y * W + x) * 3]) changed++;
      }
      return changed / ((x1 - x0) * (y1 - y0));
    };
    const { left, top, right, bottom } = CHARACTERS;
    expect(changedIn(left, top, right, bottom)).toBeGreaterThan(0.5);
    // nothing changes away from the plate
    expect(changedIn(0, 0, W, 800)).toBe(0);
    expect(changedIn(0, 1150, W, H)).toBe(0);
    expect(changedIn(0, 0, 900, H)).toBe(0);
    expect(changedIn(1700, 0, W, H)).toBe(0);
  });

  it('answers 501 when no text detector is installed in the process', async () => {
    const pipeline = new ImagePipeline(loadConfig({}));
    pipelines.push(pipeline);
    const png = await scene();
    await expect(pipeline.run(png, await pipeline.probe(png), PLAN)).rejects.toMatchObject({
      codeName: 'OPERATION_NOT_IMPLEMENTED',
    });
  });
});
