import sharp, { type Sharp } from 'sharp';
import type { RawPixels } from '../workers/raw-pixels';

/**
 * The image between two pipeline stages. sharp applies the operations of ONE pipeline in its own fixed
 * order (flatten, resize, extend, sharpen, ...), not in call order; so a stage that must run after another
 * starts a fresh pipeline on the previous stage's pixels ({@link materialize}). `fresh` says that nothing
 * has been applied yet after decoding, so the stage may use this pipeline (and keep shrink-on-load).
 */
export interface StageImage {
  image: Sharp;
  width: number;
  height: number;
  hasAlpha: boolean;
  fresh: boolean;
}

/** Runs the pipeline so far and starts a new one on its pixels (sRGB, 8 bits, alpha kept). */
export async function materialize(current: StageImage): Promise<StageImage> {
  const pixels = await toRaw(current.image);
  return fromRaw(pixels);
}

/**
 * The pixels as 8-bit sRGB. The explicit sRGB conversion matters: sharp processes 16-bit RGB in Display P3,
 * and raw output would hand over P3 values that the next stage takes for sRGB.
 */
export async function toRaw(image: Sharp): Promise<RawPixels> {
  const { data, info } = await image
    .withIccProfile('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/**
 * One channel (a mask, an alpha) as 8-bit pixels, 1 channel. Not {@link toRaw}: its sRGB conversion would turn a
 * single channel into three.
 */
export async function toMask(image: Sharp): Promise<RawPixels> {
  const { data, info } = await image.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/**
 * A new pipeline on pixels: nothing is applied yet, so it is `fresh`. The planner has already bounded every
 * intermediate size by MAX_INPUT_PIXELS, so sharp's own limit (268 MP) must not refuse them.
 */
export function fromRaw(pixels: RawPixels): StageImage {
  const { width, height, channels } = pixels;
  const image = sharp(pixels.data, {
    raw: { width, height, channels: channels as 1 | 2 | 3 | 4 },
    limitInputPixels: false,
  });
  return { image, width, height, hasAlpha: channels === 2 || channels === 4, fresh: true };
}

/** The pipeline a stage may add to: the current one when fresh, else a new one on its pixels. */
export async function ready(current: StageImage): Promise<StageImage> {
  return current.fresh ? current : materialize(current);
}

/**
 * The image with an alpha channel, ready for a transparent `extend`: sharp adds `ensureAlpha`'s channel after
 * extending, so an opaque image would get opaque borders; it gets its channel in a pipeline of its own.
 */
export async function withAlpha(current: StageImage): Promise<StageImage> {
  if (current.hasAlpha) return ready(current);
  return materialize({ ...current, image: current.image.ensureAlpha(), hasAlpha: true });
}
