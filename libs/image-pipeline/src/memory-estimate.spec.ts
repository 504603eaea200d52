import { describe, expect, it } from 'vitest';
import type { EditPlan } from './edit-plan';
import type { ImageProbe } from './decode/probe';
import { estimatePixelMemory } from './memory-estimate';

const MIB = 1024 * 1024;
const JPEG_OUT: EditPlan = { encode: { format: 'jpeg', quality: 85, progressive: false }, colour: { space: 'auto' } };
const resized = (width: number, height: number, plan: EditPlan = JPEG_OUT): EditPlan => ({
  ...plan,
  resize: { mode: 'scale', width, height },
});
const upscaled = (width: number, height: number): EditPlan => ({
  ...JPEG_OUT,
  resize: { mode: 'scale', width, height, upscale: { mode: 'photo' } },
});
const flattened: EditPlan = { ...JPEG_OUT, flatten: { r: 255, g: 255, b: 255, alpha: 1 } };
const webp: EditPlan = { encode: { format: 'webp', quality: 75, lossless: false }, colour: { space: 'auto' } };

/** 1024 x 1024 pixels: one 8-bit RGBA frame is 4 MiB. */
const probe = (format: ImageProbe['format'], space = 'srgb') => ({ format, width: 1024, height: 1024, space });

describe('estimatePixelMemory', () => {
  it.each([
    { name: 'JPEG resized: two frames of the input', probe: probe('jpeg'), plan: resized(512, 512), mib: 8 },
    { name: 'PNG alike', probe: probe('png'), plan: JPEG_OUT, mib: 8 },
    { name: 'TIFF: two and a half frames', probe: probe('tiff'), plan: JPEG_OUT, mib: 10 },
    { name: 'WebP, decoded whole: four frames', probe: probe('webp'), plan: JPEG_OUT, mib: 16 },
    { name: 'GIF, decoded whole: three and a half', probe: probe('gif'), plan: JPEG_OUT, mib: 14 },
    { name: 'AVIF, decoded whole by libheif', probe: probe('avif'), plan: JPEG_OUT, mib: 20 },
    { name: 'HEIC, decoded whole on a worker thread', probe: probe('heic'), plan: resized(512, 512), mib: 24 },
    { name: 'BMP, copied and decoded on a worker thread', probe: probe('bmp'), plan: JPEG_OUT, mib: 28 },
    { name: 'a materialising step holds the whole image twice more', probe: probe('jpeg'), plan: flattened, mib: 16 },
    { name: '16-bit input counts twice', probe: probe('png', 'rgb16'), plan: JPEG_OUT, mib: 16 },
    { name: 'an enlarged result is the frame', probe: probe('jpeg'), plan: resized(2048, 2048), mib: 32 },
    { name: 'WebP output adds the result', probe: probe('jpeg'), plan: webp, mib: 12 },
    {
      name: 'an upscale adds the 2x network output twice',
      probe: probe('jpeg'),
      plan: upscaled(2048, 2048),
      mib: 64,
    },
    {
      name: 'an upscale by 2.5 runs the 3x network',
      probe: probe('jpeg'),
      plan: upscaled(2560, 2560),
      mib: 50 + 72,
    },
  ])('$name: $mib MiB', ({ probe, plan, mib }) => {
    expect(estimatePixelMemory(probe, plan) / MIB).toBeCloseTo(mib, 5);
  });

  // docs/benchmarks.md, "Memory of one edit per input format": the largest peak over the RSS before of 10, 25
  // and 49 MP, in frames of that size (8-bit RGBA), with the input's bytes
  it.each([
    ['jpeg', 1.62],
    ['png', 1.64],
    ['tiff', 2.0],
    ['webp', 3.36],
    ['gif', 2.94],
    ['avif', 4.75],
    ['heic', 5.1],
    ['bmp', 6.9],
  ] as const)('%s: at least the %f frames measured, at most 40 %% more', (format, frames) => {
    const frame = 7000 * 7000 * 4;
    const bytes = estimatePixelMemory({ format, width: 7000, height: 7000, space: 'srgb' }, JPEG_OUT);
    expect(bytes).toBeGreaterThanOrEqual(frames * frame);
    expect(bytes).toBeLessThan(frames * frame * 1.4);
  });

  it("counts an HTTP generator's answer for outpaint: its bytes twice and its pixels as RGBA", () => {
    // style transfer's is counted by its registered step (libs/editing, operations/generative/generative.spec.ts)
    const answer = { maxPixels: 50_000_000, responseBytes: 8 * MIB };
    const outpaint: EditPlan = {
      ...JPEG_OUT,
      outpaint: {
        width: 2048,
        height: 2048,
        inner: { left: 512, top: 512, width: 1024, height: 1024 },
        feather: { x: 0, y: 0 },
      },
    };
    const canvas = estimatePixelMemory(probe('jpeg'), outpaint);
    // a 4 MP canvas: the local backend's image completion holds 80 bytes a pixel (320 MiB); an HTTP generator
    // instead answers up to 16 MP (64 MiB as RGBA), never more than MAX_INPUT_PIXELS
    expect((estimatePixelMemory(probe('jpeg'), outpaint, answer) - canvas) / MIB).toBeCloseTo(64 + 16 - 320, 5);
    const capped = { ...answer, maxPixels: 8 * MIB };
    expect((estimatePixelMemory(probe('jpeg'), outpaint, capped) - canvas) / MIB).toBeCloseTo(32 + 16 - 320, 5);
  });
});
