import { ServiceException } from '@app/common';
import sharp from 'sharp';
import { rawImage } from '../operations/subject-matte';
import { toMask, toRaw } from '../operations/stage';
import type { RawPixels } from '../workers/raw-pixels';
import type { ScenePlan } from './scene-plan';

/** Below this alpha a pixel is not part of the object (its box). */
const OBJECT_ALPHA = 8;
const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

/**
 * Enlarges the object's pixels by at least `factor` with a super-resolution network (the pipeline's upscale
 * step); absent where no network is installed.
 */
export type Enlarger = (pixels: RawPixels, factor: number) => Promise<RawPixels>;

/** An object enlarged more than this (per side) goes through the super-resolution network, not interpolation. */
export const SUPER_RESOLVE_ABOVE = 1.5;

/**
 * The object trimmed to its box and placed on a transparent canvas of the plan's size. Enlarged past its own
 * pixels, it goes through `enlarge` first (then Lanczos makes the exact size); `enlarged` says how.
 */
export async function placeObject(
  pixels: RawPixels,
  plan: ScenePlan,
  enlarge?: Enlarger,
): Promise<{ pixels: RawPixels; subject: string; enlarged?: string }> {
  const box = await objectBox(pixels);
  if (!box) {
    throw ServiceException.validation({
      'object.image_url': ['no object was found in the image (it is empty or fully transparent)'],
    });
  }
  let object = rawImage(pixels).extract(box);
  let size = { width: box.width, height: box.height };
  const placement = plan.placement;
  if (placement.type === 'absolute' && placement.rotation % 360 !== 0) {
    const rotated = await toRaw(rawImage(await toRaw(object)).rotate(placement.rotation, { background: TRANSPARENT }));
    object = rawImage(rotated);
    size = { width: rotated.width, height: rotated.height };
  }
  const target = placedBox(size, box, pixels, plan);
  const width = Math.max(1, Math.round(target.width));
  const height = Math.max(1, Math.round(target.height));
  const factor = Math.max(width / size.width, height / size.height);
  let enlarged: string | undefined;
  if (factor > SUPER_RESOLVE_ABOVE) {
    if (enlarge) object = rawImage(await enlarge(await toRaw(object), factor));
    enlarged = `${factor.toFixed(2)}x by ${enlarge ? 'super-resolution' : 'interpolation (no super-resolution model)'}`;
  }
  const resized = await toRaw(object.resize({ width, height, fit: 'fill', kernel: 'lanczos3' }));
  const left = Math.round(target.left);
  const top = Math.round(target.top);
  // only the part on the canvas: an object placed near an edge may reach past it
  const visible = {
    left: Math.max(0, -left),
    top: Math.max(0, -top),
    right: Math.min(width, plan.width - left),
    bottom: Math.min(height, plan.height - top),
  };
  const canvas = sharp({
    create: { width: plan.width, height: plan.height, channels: 4, background: TRANSPARENT },
  });
  if (visible.right <= visible.left || visible.bottom <= visible.top) {
    throw ServiceException.validation({ 'object.position': ['the object would be placed entirely outside the scene'] });
  }
  const part = await toRaw(
    rawImage(resized).extract({
      left: visible.left,
      top: visible.top,
      width: visible.right - visible.left,
      height: visible.bottom - visible.top,
    }),
  );
  const placed = await toRaw(
    canvas.composite([
      {
        input: Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength),
        raw: { width: part.width, height: part.height, channels: 4 },
        left: left + visible.left,
        top: top + visible.top,
      },
    ]),
  );
  return { pixels: placed, subject: await describeObject(resized), ...(enlarged && { enlarged }) };
}

/** The box of the pixels whose alpha reaches OBJECT_ALPHA; undefined when there are none. */
async function objectBox(
  pixels: RawPixels,
): Promise<{ left: number; top: number; width: number; height: number } | undefined> {
  // the alpha as an image of its own: sharp trims before it extracts a channel within one pipeline
  const alpha = await toMask(rawImage(pixels).extractChannel(3));
  const stats = await rawImage(alpha).stats();
  if (stats.channels[0].max < OBJECT_ALPHA) return undefined;
  if (stats.channels[0].min >= OBJECT_ALPHA) return { left: 0, top: 0, width: pixels.width, height: pixels.height };
  const { info } = await rawImage(alpha)
    .trim({ background: '#000000', threshold: OBJECT_ALPHA })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    left: -(info.trimOffsetLeft ?? 0),
    top: -(info.trimOffsetTop ?? 0),
    width: info.width,
    height: info.height,
  };
}

/** Where the object (of `size`, after rotation) goes, in canvas pixels (may reach past the canvas). */
function placedBox(
  size: { width: number; height: number },
  box: { left: number; top: number; width: number; height: number },
  frame: { width: number; height: number },
  plan: ScenePlan,
): { left: number; top: number; width: number; height: number } {
  const { placement } = plan;
  if (placement.type === 'original') {
    // the input's own framing: the whole input fitted inside the canvas, the object where it was in it
    const factor = Math.min(plan.width / frame.width, plan.height / frame.height);
    const offsetX = (plan.width - frame.width * factor) / 2;
    const offsetY = (plan.height - frame.height * factor) / 2;
    return {
      left: offsetX + box.left * factor,
      top: offsetY + box.top * factor,
      width: box.width * factor,
      height: box.height * factor,
    };
  }
  if (placement.type === 'padding') {
    const { top, right, bottom, left } = placement.sides;
    const inner = { width: plan.width - left - right, height: plan.height - top - bottom };
    const factor = Math.min(inner.width / size.width, inner.height / size.height);
    const width = size.width * factor;
    const height = size.height * factor;
    return { left: left + (inner.width - width) / 2, top: top + (inner.height - height) / 2, width, height };
  }
  const factor = placement.scale * Math.min(plan.width / size.width, plan.height / size.height);
  const width = size.width * factor;
  const height = size.height * factor;
  return {
    left: placement.centre.x * plan.width - width / 2,
    top: placement.centre.y * plan.height - height / 2,
    width,
    height,
  };
}

/**
 * What the service knows of the object, in words, for a generator asked to write its own prompt without
 * captioning: its shape and its main colour (named from its hue and lightness).
 */
async function describeObject(object: RawPixels): Promise<string> {
  const small = await toRaw(rawImage(object).resize({ width: 48, height: 48, fit: 'fill' }));
  let r = 0;
  let g = 0;
  let b = 0;
  let weight = 0;
  for (let index = 0; index < small.data.length; index += 4) {
    const alpha = small.data[index + 3];
    r += small.data[index] * alpha;
    g += small.data[index + 1] * alpha;
    b += small.data[index + 2] * alpha;
    weight += alpha;
  }
  const ratio = object.height / object.width;
  const shape = ratio > 1.3 ? 'tall' : ratio < 0.77 ? 'wide' : 'compact';
  const colour = weight > 0 ? colourName(r / weight, g / weight, b / weight) : 'neutral';
  return `a ${shape} ${colour} product`;
}

function colourName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const lightness = (max + min) / 2 / 255;
  const chroma = (max - min) / 255;
  if (chroma < 0.12) return lightness > 0.8 ? 'white' : lightness < 0.2 ? 'black' : 'grey';
  let hue = 0;
  if (max === r) hue = ((g - b) / (max - min) + 6) % 6;
  else if (max === g) hue = (b - r) / (max - min) + 2;
  else hue = (r - g) / (max - min) + 4;
  const degrees = hue * 60;
  if (degrees < 15 || degrees >= 340) return lightness < 0.35 ? 'dark red' : 'red';
  if (degrees < 45) return lightness < 0.45 ? 'brown' : 'orange';
  if (degrees < 70) return 'yellow';
  if (degrees < 160) return 'green';
  if (degrees < 200) return 'teal';
  if (degrees < 255) return 'blue';
  if (degrees < 290) return 'purple';
  return 'pink';
}
