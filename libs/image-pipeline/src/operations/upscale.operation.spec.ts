import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { EditPlan, ResizePlan } from '../edit-plan';
import type { RawImage } from '../ports/segmenter.port';
import { FaceDetector, type DetectedFace } from '../ports/face-detector.port';
import { SuperResolver, type SuperResolutionMode } from '../ports/super-resolver.port';
import type { StepContext } from './pipeline-step';
import { resize } from './resize.operation';
import { fromRaw } from './stage';
import { at, pixels, quadrants } from './test-images';
import { polish, superResolve, upscaleStep } from './upscale.operation';

/** A stand-in network: each pixel repeated scale x scale times; it records what it was asked. */
class NearestResolver extends SuperResolver {
  readonly calls: { width: number; height: number; mode: SuperResolutionMode; factor: number }[] = [];

  /** `faceNetwork`: the network a face region runs ('whole': the same as the whole image's, so no face detail). */
  constructor(private readonly faceNetwork = 'whole') {
    super();
  }

  network(mode: SuperResolutionMode): string {
    return mode === 'face' ? this.faceNetwork : 'whole';
  }

  scaleFor(_mode: SuperResolutionMode, factor: number): number {
    return factor <= 2 ? 2 : factor <= 3 ? 3 : 4;
  }

  upscale(rgb: RawImage, mode: SuperResolutionMode, factor: number): Promise<RawImage & { scale: number }> {
    expect(rgb.channels).toBe(3);
    this.calls.push({ width: rgb.width, height: rgb.height, mode, factor });
    const scale = this.scaleFor(mode, factor);
    const width = rgb.width * scale;
    const height = rgb.height * scale;
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const from = (Math.floor(y / scale) * rgb.width + Math.floor(x / scale)) * 3;
        data.set(rgb.data.subarray(from, from + 3), (y * width + x) * 3);
      }
    }
    // a face region's network is told apart by its answer: the colours inverted
    if (mode === 'face') for (let i = 0; i < data.length; i++) data[i] = 255 - data[i];
    return Promise.resolve({ data, width, height, channels: 3, scale });
  }
}

const PLAN: EditPlan = { encode: { format: 'png', compression: 'fast' }, colour: { space: 'auto' } };

function context(resolver?: SuperResolver, maxPixels = 1_000_000, faceDetector?: FaceDetector): StepContext {
  const pool = { run: () => Promise.reject(new Error('no kernel runs here')) };
  const profiles = { path: () => Promise.reject(new Error('no profile is written here')) };
  const probe = {} as StepContext['probe'];
  return {
    bytes: Buffer.alloc(0),
    probe,
    plan: PLAN,
    pool,
    profiles,
    maxPixels,
    superResolver: resolver,
    faceDetector,
  };
}

/** A stand-in detector that finds one face, 20 px square at (40, 30) of the image it is given. */
class OneFace extends FaceDetector {
  readonly inputSide = 1024;

  detect(): Promise<DetectedFace[]> {
    return Promise.resolve([{ box: { left: 40, top: 30, width: 20, height: 20 }, score: 0.9, landmarks: [] }]);
  }
}

describe('upscale faces: each face enlarged again by the face network', () => {
  const grey = () => fromRaw({ data: new Uint8Array(100 * 80 * 3).fill(100), width: 100, height: 80, channels: 3 });

  it('blends the face region’s own enlargement in, with a feathered edge, and leaves the rest', async () => {
    const resolver = new NearestResolver('medium');
    const out = await pixels(await superResolve(grey(), 'faces', 2, context(resolver, 1_000_000, new OneFace())));
    expect([out.width, out.height]).toEqual([200, 160]);
    // the face grown by 30% on each side: 34..66 x 24..56, at 2x 68..132 x 48..112
    expect(resolver.calls).toEqual([
      { width: 100, height: 80, mode: 'faces', factor: 2 },
      { width: 32, height: 32, mode: 'face', factor: 2 },
    ]);
    expect(at(out, 100, 80).slice(0, 3)).toEqual([155, 155, 155]);
    expect(at(out, 10, 10).slice(0, 3)).toEqual([100, 100, 100]);
    const edge = at(out, 69, 80)[0];
    expect(edge).toBeGreaterThan(100);
    expect(edge).toBeLessThan(155);
  });

  it('does not enlarge a face again where its network is the whole image’s, nor without a detector', async () => {
    const same = new NearestResolver('whole');
    await superResolve(grey(), 'faces', 2, context(same, 1_000_000, new OneFace()));
    expect(same.calls.map((call) => call.mode)).toEqual(['faces']);
    const none = new NearestResolver('medium');
    await superResolve(grey(), 'faces', 2, context(none));
    expect(none.calls.map((call) => call.mode)).toEqual(['faces']);
  });
});

describe('upscale step', () => {
  it('enlarges by the network scale, then the resize makes the exact size: quadrants in place', async () => {
    const resolver = new NearestResolver();
    const plan: ResizePlan = { mode: 'scale', width: 50, height: 30, upscale: { mode: 'faces' } };
    const enlarged = await upscaleStep.run(await quadrants(20, 12), plan as never, context(resolver));
    expect([enlarged.width, enlarged.height]).toEqual([60, 36]);
    expect(resolver.calls).toEqual([{ width: 20, height: 12, mode: 'faces', factor: 2.5 }]);
    const out = await pixels(await resize(enlarged, plan));
    expect([out.width, out.height]).toEqual([50, 30]);
    expect(at(out, 5, 5).slice(0, 3)).toEqual([255, 0, 0]);
    expect(at(out, 45, 25).slice(0, 3)).toEqual([255, 255, 255]);
  });

  it('does nothing when the image is not enlarged', async () => {
    const resolver = new NearestResolver();
    const stage = await quadrants(20, 12);
    const plan = { mode: 'scale', width: 10, height: 6, upscale: { mode: 'photo' } } as const;
    expect(await upscaleStep.run(stage, plan, context(resolver))).toBe(stage);
    expect(resolver.calls).toEqual([]);
  });

  it('keeps alpha (enlarged with Lanczos beside the colour), and takes grey as sRGB', async () => {
    const resolver = new NearestResolver();
    const translucent = await superResolve(await quadrants(8, 8, 0.5), 'digital_art', 2, context(resolver));
    const rgba = await pixels(translucent);
    expect(rgba).toMatchObject({ width: 16, height: 16, channels: 4 });
    expect(at(rgba, 2, 2)).toEqual([255, 0, 0, 128]);
    const greyInput = sharp(Buffer.alloc(6 * 4, 90), { raw: { width: 6, height: 4, channels: 1 } });
    const grey = await pixels(
      await superResolve(
        { image: greyInput, width: 6, height: 4, hasAlpha: false, fresh: true },
        'photo',
        2,
        context(resolver),
      ),
    );
    expect(grey).toMatchObject({ width: 12, height: 8, channels: 3 });
    expect(at(grey, 3, 3)).toEqual([90, 90, 90]);
  });

  it('shrinks a large input first so that the network output stays within the pixel limit', async () => {
    const resolver = new NearestResolver();
    const enlarged = await superResolve(await quadrants(40, 30), 'photo', 1.5, context(resolver, 2400));
    // 1200 px x 2 x 2 > 2400: shrunk by sqrt(2400 / 4800) to 28 x 21, whose 2x output (2352 px) fits
    expect(resolver.calls[0]).toMatchObject({ width: 28, height: 21 });
    expect(enlarged.width * enlarged.height).toBeLessThanOrEqual(2400);
  });

  it('answers 501 when no super-resolution model is installed', async () => {
    await expect(superResolve(await quadrants(4, 4), 'photo', 2, context())).rejects.toMatchObject({
      codeName: 'OPERATION_NOT_IMPLEMENTED',
      status: 501,
    });
  });
});

describe('polish (the kernel of the registered restorations step)', () => {
  it('keeps the size: the 2x network output scaled back', async () => {
    const resolver = new NearestResolver();
    const out = await pixels(await polish(await quadrants(20, 12), context(resolver)));
    expect([out.width, out.height]).toEqual([20, 12]);
    expect(resolver.calls).toEqual([{ width: 20, height: 12, mode: 'polish', factor: 2 }]);
    expect(at(out, 2, 2).slice(0, 3)).toEqual([255, 0, 0]);
  });
});
