import type { BlurBackgroundPlan } from '../edit-plan';
import type { RawPixels } from '../workers/raw-pixels';
import type { StepContext } from './pipeline-step';
import { ready, toRaw, type StageImage } from './stage';
import { rawImage, resizedRaw, subjectMatte } from './subject-matte';

/**
 * The blur is computed at a reduced size where it is wide (a blurred image holds no detail finer than its
 * kernel, so upsampling it loses nothing visible): at most this sigma or disc radius, in working pixels, and at
 * most BLUR_MAX_SIDE per side. This bounds both the time (the disc costs 2r + 1 reads per pixel) and the memory.
 */
const BLUR_MAX_SIGMA = 6;
const BLUR_MAX_DISC = 12;
const BLUR_MAX_SIDE = 1536;

/** The size at which a blur of `plan.radius` over `width` x `height` is computed, and the radius there. */
export function blurWorkingSize(
  width: number,
  height: number,
  plan: Pick<BlurBackgroundPlan, 'kind' | 'radius'>,
): { width: number; height: number; radius: number } {
  const cap = plan.kind === 'lens' ? BLUR_MAX_DISC : BLUR_MAX_SIGMA;
  const scale = Math.min(1, BLUR_MAX_SIDE / Math.max(width, height), cap / plan.radius);
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
    radius: plan.radius * scale,
  };
}

/**
 * The background blurred around a sharp object: the background alone is blurred at the working size with the
 * object left out (kernels/background-blur.kernel.ts: no halo of the object's colours), upsampled, and the
 * full-size image put back on top through the refined mask. An alpha channel of the input is kept as it was.
 */
export async function blurBackground(
  current: StageImage,
  plan: BlurBackgroundPlan,
  context: StepContext,
): Promise<StageImage> {
  const stage = await ready(current);
  const pixels = await toRaw(stage.image);
  const { width, height, channels } = pixels;
  const matte = await subjectMatte(pixels, plan.subject, context);
  const source = rawImage(pixels);
  const working = blurWorkingSize(width, height, plan);
  const [small, mask, alpha] = await Promise.all([
    resizedRaw(source.clone(), working.width, working.height, 3),
    resizedRaw(rawImage(matte.alpha), working.width, working.height, 1),
    resizedRaw(rawImage(matte.alpha), width, height, 1),
  ]);
  const blurred = await context.pool.run('background-blur', {
    image: small,
    mask,
    kind: plan.kind,
    radius: working.radius,
  });
  const background = await resizedRaw(rawImage(blurred), width, height, 3);
  // sharp joins channels before it removes any, so the input's own alpha goes in a pipeline of its own
  const colour = channels === 3 ? pixels.data : await source.clone().removeAlpha().raw().toBuffer();
  const object = await rawImage({ data: colour, width, height, channels: 3 })
    .joinChannel(Buffer.from(alpha.data), rawOf(alpha))
    .raw()
    .toBuffer();
  // sharp's composite may add an opaque alpha channel, which goes only in a pipeline of its own
  const composed = await rawImage(background)
    .composite([{ input: object, raw: { width, height, channels: 4 } }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  const opaque = rawImage({ data: composed.data, width, height, channels: composed.info.channels }).removeAlpha();
  if (channels !== 4) return { image: opaque, width, height, hasAlpha: false, fresh: false };
  const ownAlpha = await source.clone().extractChannel(3).raw().toBuffer();
  const rgb = await opaque.raw().toBuffer();
  const image = rawImage({ data: rgb, width, height, channels: 3 }).joinChannel(ownAlpha, rawOf(alpha));
  return { image, width, height, hasAlpha: true, fresh: false };
}

function rawOf(pixels: RawPixels): { raw: { width: number; height: number; channels: 1 } } {
  return { raw: { width: pixels.width, height: pixels.height, channels: 1 } };
}
