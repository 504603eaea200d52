import { ServiceException } from '@app/common';
import type { ResizePlan } from '../edit-plan';
import type { SuperResolutionMode, SuperResolver } from '../ports/super-resolver.port';
import type { RawPixels } from '../workers/raw-pixels';
import type { PipelineStep, StepContext } from './pipeline-step';
import { withFaceDetail } from './face-detail';
import { fromRaw, toRaw, type StageImage } from './stage';
import { rawImage } from './subject-matte';

function requireResolver(context: StepContext): SuperResolver {
  if (context.superResolver) return context.superResolver;
  // The planner answers 501 first where the capability is absent; this is a process whose capability and
  // provider disagree, told the same way rather than as a crash.
  throw new ServiceException(
    'OPERATION_NOT_IMPLEMENTED',
    'The super-resolution model that upscale and polish need is not installed on this service.',
  );
}

/** The image's colour as 3-channel 8-bit sRGB (grey replicated), and its alpha plane when it has one. */
async function split(pixels: RawPixels): Promise<{ rgb: RawPixels; alpha?: RawPixels }> {
  const { width, height, channels } = pixels;
  const source = rawImage(pixels);
  const colour =
    channels === 3
      ? pixels
      : { data: await source.clone().removeAlpha().toColourspace('srgb').raw().toBuffer(), width, height, channels: 3 };
  if (channels !== 2 && channels !== 4) return { rgb: colour };
  const alpha = await source
    .extractChannel(channels === 2 ? 1 : 3)
    .raw()
    .toBuffer();
  return { rgb: colour, alpha: { data: alpha, width, height, channels: 1 } };
}

/**
 * The image enlarged by the super-resolution model of `mode` (SuperResolver port) at the smallest model scale that
 * reaches `factor`: usually larger than asked, so the resize that follows makes the exact size (Lanczos). The
 * alpha channel, which the model does not see, is enlarged with Lanczos (the stage's pixels are sRGB, grey
 * included, as between every two stages: the encoder writes the output's colour space). So that the model's
 * output never exceeds MAX_INPUT_PIXELS, a large input is first shrunk to the size the scale fills up to it
 * (only when the asked factor is below the model's scale: the planner bounded the result itself).
 */
export async function superResolve(
  current: StageImage,
  mode: SuperResolutionMode,
  factor: number,
  context: StepContext,
): Promise<StageImage> {
  const resolver = requireResolver(context);
  let pixels = await toRaw(current.image);
  const scale = resolver.scaleFor(mode, factor);
  const fit = Math.min(1, Math.sqrt(context.maxPixels / (pixels.width * pixels.height * scale * scale)));
  if (fit < 1) {
    const width = Math.max(1, Math.floor(pixels.width * fit));
    const height = Math.max(1, Math.floor(pixels.height * fit));
    const { data, info } = await rawImage(pixels)
      .resize({ width, height, fit: 'fill', kernel: 'lanczos3' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    pixels = { data, width: info.width, height: info.height, channels: info.channels };
  }
  const { rgb, alpha } = await split(pixels);
  const colour = { ...rgb, channels: 3 as const };
  const faceAware = mode === 'faces' && context.faceDetector;
  // the resolver moves the pixels it is given to its thread: the face detail needs them after, so a copy goes
  let enlarged = await resolver.upscale(faceAware ? { ...colour, data: colour.data.slice() } : colour, mode, factor);
  if (faceAware) enlarged = await withFaceDetail(colour, enlarged, factor, resolver, context.faceDetector!);
  const { width, height } = enlarged;
  let image = rawImage(enlarged);
  if (alpha) {
    // sharp hands a resized 1-channel raw image back as 3 channels unless one is extracted
    const plane = await rawImage(alpha)
      .resize({ width, height, fit: 'fill', kernel: 'lanczos3' })
      .extractChannel(0)
      .raw()
      .toBuffer();
    image = image.joinChannel(plane, { raw: { width, height, channels: 1 } });
  }
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return fromRaw({ data, width: info.width, height: info.height, channels: info.channels });
}

/** The resize plans that enlarge with a model: scale and crop with `upscale` (canvas never enlarges). */
type UpscalingResize = Extract<ResizePlan, { mode: 'scale' | 'crop' }>;

/**
 * Resizing: the upscale model, where the size grows (docs/api-contract.md, "Image edit": the upscale model runs in resizing). It enlarges by
 * the model's scale; the resize step after it makes the exact size and fit. Off when the image is not enlarged.
 */
export const upscaleStep: PipelineStep<UpscalingResize> = {
  name: 'upscale',
  phase: 'resizing',
  assumes8BitSrgb: true,
  partOf: (plan) => (plan.resize && plan.resize.mode !== 'canvas' && plan.resize.upscale ? plan.resize : undefined),
  async run(stage, resize, context) {
    const factor = Math.max(resize.width / stage.width, resize.height / stage.height);
    if (factor <= 1 || !resize.upscale) return stage;
    return superResolve(stage, resize.upscale.mode, factor, context);
  },
};

/**
 * `restorations.polish` (run by libs/editing's registered `restorations` step), detail redrawn at the same size:
 * the image super-resolved 2x (the model redraws edges and texture), then scaled back to its size with Lanczos.
 */
export async function polish(stage: StageImage, context: StepContext): Promise<StageImage> {
  const { width, height } = stage;
  const enlarged = await superResolve(stage, 'polish', 2, context);
  const image = enlarged.image.resize({ width, height, fit: 'fill', kernel: 'lanczos3' });
  return { ...enlarged, image, width, height, fresh: false };
}
