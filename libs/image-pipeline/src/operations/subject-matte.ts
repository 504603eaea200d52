import { ServiceException } from '@app/common';
import sharp, { type Sharp } from 'sharp';
import type { SubjectPlan } from '../edit-plan';
import type { MatteResult } from '../kernels/matte.kernel';
import type { RawImage, SegmentationCategory, Segmenter } from '../ports/segmenter.port';
import type { RawPixels } from '../workers/raw-pixels';
import type { StepContext } from './pipeline-step';

/**
 * The longest side, in pixels, at which the mask is refined: the guided filter and the background estimate hold
 * about ten float planes of this size (about 170 MB at 2048 x 2048), whatever the input's size (50 MP included).
 * The refined alpha is then upsampled to full size.
 */
export const MATTE_MAX_SIDE = 2048;

/** A raw image as a sharp pipeline (no pixel limit: the planner bounded every size already). */
export function rawImage(pixels: RawPixels): Sharp {
  const { width, height, channels } = pixels;
  return sharp(pixels.data, { raw: { width, height, channels: channels as 1 | 2 | 3 | 4 }, limitInputPixels: false });
}

/** `image` resized to exactly `width` x `height` (aspect not kept), as raw pixels of `channels` (1 or 3). */
export async function resizedRaw(image: Sharp, width: number, height: number, channels: 1 | 3): Promise<RawPixels> {
  let pipeline = image.resize({ width, height, fit: 'fill', kernel: 'mitchell' });
  pipeline = channels === 1 ? pipeline.extractChannel(0) : pipeline.removeAlpha();
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** The working size of the matte for an image of `width` x `height`: at most MATTE_MAX_SIDE per side. */
export function matteSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, MATTE_MAX_SIDE / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function requireSegmenter(context: StepContext): Segmenter {
  if (context.segmenter) return context.segmenter;
  // The planner answers 501 first where the capability is absent; this is a process whose capability and
  // provider disagree, told the same way rather than as a crash.
  throw new ServiceException(
    'OPERATION_NOT_IMPLEMENTED',
    'The segmentation model the background operations need is not installed on this service.',
  );
}

/** The Segmenter's coarse mask of `image` (the image squeezed to the model's input size), at that size. */
async function coarseMask(image: Sharp, segmenter: Segmenter, category: SegmentationCategory): Promise<RawImage> {
  const { width, height } = segmenter.inputSize;
  const modelInput = await resizedRaw(image, width, height, 3);
  return segmenter.mask({ ...modelInput, channels: 3 }, category);
}

/** An object that covers more than this share of the image is the scene itself: no object mask for it. */
const OBJECT_MAX_SHARE = 0.9;

/**
 * Where `pixels` (3 channels) shows its salient object: the Segmenter's coarse mask scaled to the image, widened by
 * about `spread` px (a blur of sigma spread / 2), everything above `threshold` (of 255; 32 takes the mask's soft
 * rim too, 128 its middle), as 1 channel, 255 on the object.
 * Undefined when no segmenter is installed, or when the object covers more than OBJECT_MAX_SHARE of the image.
 */
export async function objectMask(
  pixels: RawPixels,
  context: StepContext,
  spread: number,
  threshold = 32,
): Promise<RawPixels | undefined> {
  const segmenter = context.segmenter;
  if (!segmenter) return undefined;
  const coarse = await coarseMask(rawImage(pixels), segmenter, 'general');
  let mask = rawImage(coarse).resize({ width: pixels.width, height: pixels.height, fit: 'fill', kernel: 'linear' });
  if (spread > 0) mask = mask.blur(Math.max(0.3, spread / 2));
  const { data, info } = await mask.threshold(threshold).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const result: RawPixels = { data, width: info.width, height: info.height, channels: 1 };
  // the share covered, by libvips (the mask is 0 or 255): no pixel loop on the event loop
  const { channels } = await rawImage(result).stats();
  return channels[0].mean / 255 > OBJECT_MAX_SHARE ? undefined : result;
}

/**
 * The object's matte at the working size: the Segmenter's coarse mask (the image squeezed to its input size),
 * upsampled to the working size and refined there, guided by the image (kernels/matte.kernel.ts, on a worker
 * thread). `pixels` is the full image (3 or 4 channels; its alpha is not read here).
 */
export async function subjectMatte(
  pixels: RawPixels,
  subject: SubjectPlan,
  context: StepContext,
): Promise<MatteResult> {
  const segmenter = requireSegmenter(context);
  const { inputSize } = segmenter;
  const source = rawImage(pixels);
  const coarse = await coarseMask(source.clone(), segmenter, subject.category);
  const size = matteSize(pixels.width, pixels.height);
  const [image, upsampled] = await Promise.all([
    resizedRaw(source.clone(), size.width, size.height, 3),
    resizedRaw(rawImage(coarse), size.width, size.height, 1),
  ]);
  const coarsePixel = Math.max(1, Math.max(size.width / inputSize.width, size.height / inputSize.height));
  return context.pool.run('matte', {
    image,
    coarse: upsampled,
    category: subject.category,
    largestOnly: subject.largestOnly,
    coarsePixel,
  });
}
