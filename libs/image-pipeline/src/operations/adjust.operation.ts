import type { AdjustPlan, HdrPlan } from '../edit-plan';
import type { PixelPool } from '../workers/pixel-pool';
import { fromRaw, materialize, ready, toRaw, type StageImage } from './stage';

/**
 * The documented mappings of the global adjustments (all monotonic, 0 is the identity):
 * - exposure e in -100..100: +-2 stops; in sRGB's gamma-encoded values a gain of 2^(2e/100 / 2.2)
 *   (a power-2.2 encoding turns a linear-light gain g into g^(1/2.2)).
 * - contrast c in -100..100: a slope k = tan((1 + 0.9c/100) * pi/4) about mid-grey 128: k = 1 at 0,
 *   about 1.33 at 20, nearly flat (0.08) at -100 and close to a threshold (12.7) at 100.
 * - saturation s in -100..100: chroma scaled by 1 + s/100 (grey at -100, doubled at 100).
 * - sharpness p in 0..100: an unsharp mask of radius 0.6 + 1.4p/100 and strength 1 + 2p/100.
 */
export function exposureGain(exposure: number): number {
  return Math.pow(2, (2 * exposure) / 100 / 2.2);
}

export function contrastSlope(contrast: number): number {
  return Math.tan(((1 + (0.9 * contrast) / 100) * Math.PI) / 4);
}

/** One `linear(a, b)` for exposure then contrast: k * (g * x - 128) + 128. */
export function toneLine(exposure: number, contrast: number): { a: number; b: number } {
  const g = exposureGain(exposure);
  const k = contrastSlope(contrast);
  return { a: k * g, b: 128 * (1 - k) };
}

export function isIdentity(plan: AdjustPlan): boolean {
  return (
    plan.exposure === 0 &&
    plan.contrast === 0 &&
    plan.saturation === 0 &&
    plan.sharpness === 0 &&
    (plan.hdr === undefined || plan.hdr.intensity === 0)
  );
}

/** Local tone mapping on a worker thread (see kernels/hdr.kernel.ts for the mapping). */
async function toneMap(current: StageImage, hdr: HdrPlan, pool: Pick<PixelPool, 'run'>): Promise<StageImage> {
  const pixels = await toRaw(current.image);
  return fromRaw(await pool.run('hdr', { image: pixels, intensity: hdr.intensity, stitching: hdr.stitching }));
}

/**
 * Applies the adjustments after resizing, in the documented order: HDR (it reads local contrast), then
 * exposure and contrast, then saturation and sharpness. sharp runs `linear` after `modulate` and `sharpen`
 * within one pipeline, so when both groups are asked for, the tone line gets a pipeline of its own.
 */
export async function adjust(current: StageImage, plan: AdjustPlan, pool: Pick<PixelPool, 'run'>): Promise<StageImage> {
  if (isIdentity(plan)) return current;
  let stage = plan.hdr && plan.hdr.intensity > 0 ? await toneMap(current, plan.hdr, pool) : await ready(current);
  const tone = plan.exposure !== 0 || plan.contrast !== 0;
  const detail = plan.saturation !== 0 || plan.sharpness > 0;
  if (tone) {
    const { a, b } = toneLine(plan.exposure, plan.contrast);
    stage = { ...stage, image: stage.image.linear(a, b), fresh: false };
    if (detail) stage = await materialize(stage);
  }
  let image = stage.image;
  if (plan.saturation !== 0) image = image.modulate({ saturation: 1 + plan.saturation / 100 });
  if (plan.sharpness > 0) {
    const p = plan.sharpness / 100;
    image = image.sharpen({ sigma: 0.6 + 1.4 * p, m1: 1 + 2 * p, m2: 2 + 4 * p });
  }
  return { ...stage, image, fresh: false };
}
