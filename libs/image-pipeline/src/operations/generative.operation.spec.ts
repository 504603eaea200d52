import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pngClaiming } from '../../../../test/helpers/fake-generators/fake-server';
import { rejected } from '../../../../test/helpers/rejected';
import { generatedAnswerPixels } from '../memory-estimate';
import { GenerativeBackend, type GeneratedImage, type OutpaintJob, type SceneResult } from '../ports/generative.port';
import { SceneSegmenter } from './background-scene';
import { fitGenerated, outpaint } from './generative.operation';
import type { StepContext } from './pipeline-step';
import { fromRaw } from './stage';

/** A generator's answer: an encoded image fitted to the job's size, decoded only within what admission counted. */
describe('fitGenerated', () => {
  const MAX_PIXELS = 50_000_000;

  it('refuses a header claiming 100000x100000 before decoding: 502 naming the size, no byte of the answer', async () => {
    const started = performance.now();
    const error = await rejected(fitGenerated({ encoded: pngClaiming(100_000, 100_000) }, 400, 300, 3, MAX_PIXELS));
    expect(error.status).toBe(502);
    expect(error.codeName).toBe('GENERATOR_FAILED');
    expect(error.message).toBe(
      'The image generator answered with an image that is too large (100000x100000; at most 4194304 pixels for a 400x300 job).',
    );
    expect(performance.now() - started).toBeLessThan(5_000); // a header read, not ten gigapixels
  });

  it('takes an answer up to four times the job (at least 2048x2048), never over MAX_INPUT_PIXELS', async () => {
    expect(generatedAnswerPixels(400 * 300, MAX_PIXELS)).toBe(2048 * 2048);
    expect(generatedAnswerPixels(3000 * 2000, MAX_PIXELS)).toBe(24_000_000);
    expect(generatedAnswerPixels(5000 * 4000, MAX_PIXELS)).toBe(MAX_PIXELS);
    const answer = await sharp({ create: { width: 2048, height: 2048, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const fitted = await fitGenerated({ encoded: answer }, 400, 300, 3, MAX_PIXELS);
    expect([fitted.width, fitted.height, fitted.channels]).toEqual([400, 300, 3]);
    // the same answer over a MAX_INPUT_PIXELS of 1 MP
    const error = await rejected(fitGenerated({ encoded: answer }, 400, 300, 3, 1_000_000));
    expect(error.message).toContain('is too large (2048x2048; at most 1000000 pixels for a 400x300 job)');
  });

  it('refuses bytes that are no image with a 502, not a 500', async () => {
    const error = await rejected(fitGenerated({ encoded: Buffer.from('<html>oops</html>') }, 40, 30, 3, MAX_PIXELS));
    expect(error.status).toBe(502);
    expect(error.message).toBe('The image generator answered with an image that cannot be decoded.');
  });
});

/** Outpaint hands the backend the object's mask (the Segmenter's), at the image's place on the canvas. */
describe('outpaint: the object the fill must not copy', () => {
  /** A backend that keeps the outpaint job it is given and answers the canvas as it came. */
  class KeepingBackend extends GenerativeBackend {
    readonly name = 'local';
    job?: OutpaintJob;
    scene(): Promise<SceneResult> {
      throw new Error('not used');
    }
    async outpaint(job: OutpaintJob): Promise<GeneratedImage> {
      this.job = job;
      return { pixels: job.image.pixels };
    }
    styleTransfer(): Promise<GeneratedImage> {
      throw new Error('not used');
    }
  }

  async function run(discs: Array<{ cx: number; cy: number; r: number }>): Promise<OutpaintJob> {
    const image = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#808080' } })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const generative = new KeepingBackend();
    const context = {
      bytes: Buffer.alloc(16),
      maxPixels: 50_000_000,
      segmenter: new SceneSegmenter({ width: 200, height: 100, discs }),
      generative,
    } as unknown as StepContext;
    const plan = {
      width: 300,
      height: 140,
      inner: { left: 50, top: 20, width: 200, height: 100 },
      feather: { x: 0, y: 0 },
    };
    await outpaint(fromRaw({ data: image.data, width: 200, height: 100, channels: 3 }), plan, context);
    if (!generative.job) throw new Error('the backend was not called');
    return generative.job;
  }

  it('marks the object at its place on the canvas, and nothing outside the image', async () => {
    const job = await run([{ cx: 150, cy: 50, r: 30 }]);
    const object = job.object?.pixels;
    expect(object && [object.width, object.height, object.channels]).toEqual([300, 140, 1]);
    const at = (x: number, y: number) => object!.data[y * 300 + x];
    expect(at(50 + 150, 20 + 50)).toBe(255); // the disc's centre
    expect(at(50 + 179, 20 + 50)).toBe(255); // its edge (the disc ends at x = 180)
    expect(at(50 + 184, 20 + 50)).toBe(0); // widened by no more than the mask's blur
    expect(at(50 + 40, 20 + 50)).toBe(0); // the image away from it
    expect(at(10, 70)).toBe(0); // the new area
  });

  it('marks nothing where the object is the whole image (it is the scene)', async () => {
    const job = await run([{ cx: 100, cy: 50, r: 200 }]);
    expect(job.object).toBeUndefined();
  });
});
