import { ServiceException } from '@app/common';
import sharp from 'sharp';
import type { OutpaintPlan, StyleTransferPlan } from '../edit-plan';
import { generatedAnswerPixels } from '../memory-estimate';
import type { GeneratedImage, GenerationOptions, GenerativeBackend, PortImage } from '../ports/generative.port';
import type { RawPixels } from '../workers/raw-pixels';
import type { PipelineStep, StepContext } from './pipeline-step';
import { fromRaw, ready, toMask, toRaw, type StageImage } from './stage';
import { objectMask, rawImage } from './subject-matte';

/** The signal of a run without a client to lose (a task's item, a spec). */
const NEVER = new AbortController().signal;

/** The longest side of the style reference handed to a backend: its statistics need no more. */
const REFERENCE_MAX_SIDE = 1024;

function requireGenerative(context: StepContext): GenerativeBackend {
  if (context.generative) return context.generative;
  throw new ServiceException('OPERATION_NOT_IMPLEMENTED', 'No generative backend is configured on this service.');
}

/** Pixels handed to a backend, with their PNG made once, when first asked for. */
export function portImage(pixels: RawPixels): PortImage {
  let png: Promise<Buffer> | undefined;
  return {
    pixels: pixels as PortImage['pixels'],
    png: () => (png ??= rawImage(pixels).png({ compressionLevel: 1 }).toBuffer()),
  };
}

/** A generator's answer that cannot be used: 502 GENERATOR_FAILED, no byte of it in the message. */
function unusable(reason: string, detail?: string): ServiceException {
  return new ServiceException(
    'GENERATOR_FAILED',
    `The image generator answered with an image that ${reason}.`,
    detail === undefined ? {} : { generator: [detail] },
  );
}

/**
 * A backend's answer as raw pixels of exactly `width` x `height` with `channels` channels (3 or 4). An encoded
 * answer is decoded only when its header's size is within {@link generatedAnswerPixels} of the job (never over
 * `maxPixels`, MAX_INPUT_PIXELS): what admission counted for it (memory-estimate.ts).
 */
export async function fitGenerated(
  image: GeneratedImage,
  width: number,
  height: number,
  channels: 3 | 4,
  maxPixels: number,
): Promise<RawPixels> {
  if ('pixels' in image) {
    const { pixels } = image;
    if (pixels.width === width && pixels.height === height && pixels.channels === channels) return pixels as RawPixels;
  }
  let decoded: sharp.Sharp;
  if ('pixels' in image) {
    decoded = rawImage(image.pixels as RawPixels);
  } else {
    const limit = generatedAnswerPixels(width * height, maxPixels);
    let header: sharp.Metadata;
    try {
      // the header only: its size is checked here, against the job's limit, not sharp's default
      header = await sharp(image.encoded, { limitInputPixels: false }).metadata();
    } catch {
      throw unusable('cannot be decoded', 'not an image sharp reads');
    }
    const pages = header.pages ?? 1;
    if (!header.width || !header.height || header.width * header.height * pages > limit) {
      throw unusable(
        `is too large (${header.width ?? '?'}x${header.height ?? '?'}${pages > 1 ? `, ${pages} pages` : ''}; at most ${limit} pixels for a ${width}x${height} job)`,
      );
    }
    decoded = sharp(image.encoded, { limitInputPixels: limit }).toColourspace('srgb');
  }
  decoded = decoded.resize({ width, height, fit: 'fill' });
  decoded = channels === 4 ? decoded.ensureAlpha() : decoded.flatten({ background: '#ffffff' });
  try {
    return await toRaw(decoded);
  } catch (error) {
    throw unusable('cannot be decoded', error instanceof Error ? error.message.slice(0, 200) : 'undecodable image');
  }
}

/**
 * A seed from what the edit is (the input's size and bytes, the plan part): the same edit gives the same image
 * with a deterministic backend.
 */
function seedOf(context: StepContext, part: object): number {
  let hash = 2166136261 ^ context.bytes.length;
  const text = JSON.stringify(part);
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  for (let index = 0; index < context.bytes.length; index += 4099)
    hash = Math.imul(hash ^ context.bytes[index], 16777619);
  return (hash >>> 0) & 0x7fffffff;
}

function options(context: StepContext, part: object, prompt?: string): GenerationOptions {
  return {
    model: 'v1',
    preference: 'optimal',
    seed: seedOf(context, part),
    variant: 0,
    text: { prompt, generate: false, subject: 'the scene of the photograph' },
    signal: context.signal ?? NEVER,
  };
}

/** The image with its alpha set aside: a backend works on 3 channels, the alpha is put back afterwards. */
async function opaque(stage: StageImage): Promise<{ rgb: RawPixels; alpha?: RawPixels }> {
  const pixels = await toRaw((await ready(stage)).image);
  if (pixels.channels !== 4 && pixels.channels !== 2) {
    return { rgb: pixels.channels === 3 ? pixels : await toRaw(rawImage(pixels).toColourspace('srgb')) };
  }
  const source = rawImage(pixels);
  const [rgb, alpha] = await Promise.all([
    toRaw(source.clone().removeAlpha().toColourspace('srgb')),
    toMask(source.clone().extractChannel(pixels.channels === 4 ? 3 : 1)),
  ]);
  return { rgb, alpha };
}

/**
 * Outpaint (`fit: outpaint`): the image scaled to the plan's inner box on the canvas, the rest generated by the
 * backend; then the image's own pixels put back over the answer with a ramp across the feather band, so that a
 * generator that redraws the middle cannot change it.
 */
export async function outpaint(current: StageImage, plan: OutpaintPlan, context: StepContext): Promise<StageImage> {
  const backend = requireGenerative(context);
  const { inner, width, height } = plan;
  const stage = await ready(current);
  const scaled = await toRaw(
    stage.image.resize({ width: inner.width, height: inner.height, fit: 'fill', kernel: 'lanczos3' }).flatten({
      background: '#ffffff',
    }),
  );
  // the canvas (the image on black) and the mask (white where new), each the image's box extended by libvips,
  // made while the segmenter finds the object
  const margins = marginsOf(plan);
  const [canvas, mask, object] = await Promise.all([
    toRaw(rawImage(scaled).extend({ ...margins, background: { r: 0, g: 0, b: 0 } })),
    toMask(
      rawImage({
        data: Buffer.alloc(inner.width * inner.height),
        width: inner.width,
        height: inner.height,
        channels: 1,
      })
        .extend({ ...margins, background: { r: 255, g: 255, b: 255 } })
        .extractChannel(0),
    ),
    objectOnCanvas(scaled, plan, context),
  ]);
  const placed = canvas.channels === 3 ? canvas : await toRaw(rawImage(canvas).removeAlpha());
  // the image's own pixels, faded out across the feather band, made while the backend draws
  const [answer, overlay] = await Promise.all([
    backend.outpaint({
      ...options(context, plan),
      image: portImage(placed),
      mask: portImage(mask),
      inner,
      feather: plan.feather,
      object: object && portImage(object),
    }),
    featherRamp(inner.width, inner.height, plan.feather).then((ramp) =>
      toRaw(
        rawImage(scaled).joinChannel(buffer(ramp), { raw: { width: ramp.width, height: ramp.height, channels: 1 } }),
      ),
    ),
  ]);
  const filled = await fitGenerated(answer, width, height, 3, context.maxPixels);
  // the image's own pixels over the answer
  const result = await toRaw(
    rawImage(filled).composite([
      {
        input: buffer(overlay),
        raw: { width: overlay.width, height: overlay.height, channels: 4 },
        left: inner.left,
        top: inner.top,
      },
    ]),
  );
  return fromRaw(result.channels === 4 ? await toRaw(rawImage(result).removeAlpha()) : result);
}

/** Widening of the object's mask, as a share of the image's shorter side: the mask is only 320 px across. */
const OBJECT_SPREAD = 0.01;

/** The scaled image's object mask (objectMask) on the canvas, at the image's place; 0 elsewhere. */
async function objectOnCanvas(
  scaled: RawPixels,
  plan: OutpaintPlan,
  context: StepContext,
): Promise<RawPixels | undefined> {
  const spread = Math.max(1, OBJECT_SPREAD * Math.min(scaled.width, scaled.height));
  const mask = await objectMask(scaled, context, spread);
  if (!mask) return undefined;
  return toMask(
    sharp(buffer(mask), { raw: { width: mask.width, height: mask.height, channels: 1 } })
      .extend({ ...marginsOf(plan), background: { r: 0, g: 0, b: 0 } })
      .extractChannel(0),
  );
}

/** The canvas around the image's box: the pixels to add on each side. */
function marginsOf({ width, height, inner }: OutpaintPlan): {
  left: number;
  top: number;
  right: number;
  bottom: number;
} {
  return {
    left: inner.left,
    top: inner.top,
    right: width - inner.left - inner.width,
    bottom: height - inner.top - inner.height,
  };
}

/**
 * 255 inside the box, falling linearly to 0 at its edges over `feather` pixels (x across left/right, y across
 * top/bottom): the product of a row ramp and a column ramp, made by sharp (only the two ramps are computed here).
 */
async function featherRamp(width: number, height: number, feather: { x: number; y: number }): Promise<RawPixels> {
  const ramp = (length: number, band: number) =>
    Buffer.from(
      Array.from({ length }, (_, index) =>
        band > 0 ? Math.round(255 * Math.min(1, Math.min(index + 0.5, length - index - 0.5) / band)) : 255,
      ),
    );
  const spread = (line: Buffer, across: number, down: number) =>
    sharp(line, { raw: { width: across, height: down, channels: 1 } }).resize({
      width,
      height,
      fit: 'fill',
      kernel: 'nearest',
    });
  const rows = await toMask(spread(ramp(width, feather.x), width, 1).extractChannel(0));
  return toMask(
    spread(ramp(height, feather.y), 1, height)
      .composite([{ input: buffer(rows), raw: { width, height, channels: 1 }, blend: 'multiply' }])
      .extractChannel(0),
  );
}

/**
 * Style transfer: the image restyled by the backend towards the reference image (scaled to at most
 * REFERENCE_MAX_SIDE) or the prompt, the same size; the object's mask (objectMask) handed over so that the product
 * keeps its colours; an alpha channel is kept as it was.
 */
export async function styleTransfer(
  current: StageImage,
  plan: StyleTransferPlan,
  context: StepContext,
  referenceBytes: Buffer | undefined,
): Promise<StageImage> {
  const backend = requireGenerative(context);
  const { rgb, alpha } = await opaque(current);
  const reference =
    plan.reference && referenceBytes
      ? await toRaw(
          sharp(referenceBytes, { limitInputPixels: context.maxPixels })
            .autoOrient()
            .resize({ width: REFERENCE_MAX_SIDE, height: REFERENCE_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
            .flatten({ background: '#ffffff' })
            .toColourspace('srgb'),
        )
      : undefined;
  // not widened, its middle: a ring of the old background kept around the object would be a halo
  const object = await objectMask(rgb, context, 0, 128);
  const answer = await backend.styleTransfer({
    ...options(context, plan, plan.prompt),
    image: portImage(rgb),
    reference: reference && portImage(reference),
    styleStrength: plan.styleStrength,
    denoisingStrength: plan.denoisingStrength,
    depthStrength: plan.depthStrength,
    object: object && portImage(object),
  });
  const styled = await fitGenerated(answer, rgb.width, rgb.height, 3, context.maxPixels);
  if (!alpha) return fromRaw(styled);
  return fromRaw(
    await toRaw(
      rawImage(styled).joinChannel(buffer(alpha), { raw: { width: alpha.width, height: alpha.height, channels: 1 } }),
    ),
  );
}

function buffer(pixels: RawPixels): Buffer {
  return Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength);
}

/** Resizing: `fit: outpaint` (the generative port). */
export const outpaintStep: PipelineStep<OutpaintPlan> = {
  name: 'outpaint',
  phase: 'resizing',
  assumes8BitSrgb: true,
  partOf: (plan) => plan.outpaint,
  run: outpaint,
};
