import { ServiceException } from '@app/common';
import sharp, { type Sharp } from 'sharp';
import type { ProfileFiles } from '../colour/profile-files';
import type { ImageProbe } from '../decode/probe';
import type { EditPlan, Rgba } from '../edit-plan';
import type { PipelineResult } from '../image-pipeline';
import { removeBackground } from '../operations/background-removal.operation';
import { decodeStep } from '../operations/decode.operation';
import { encode } from '../operations/encode.operation';
import { fitGenerated, portImage } from '../operations/generative.operation';
import type { StepContext } from '../operations/pipeline-step';
import { fromRaw, toMask, toRaw } from '../operations/stage';
import { matteSize, rawImage } from '../operations/subject-matte';
import type {
  GeneratedImage,
  GenerativeBackend,
  ObjectTone,
  PortColour,
  PortImage,
  PortPixels,
  SceneBackground,
  SceneJob,
} from '../ports/generative.port';
import type { Segmenter } from '../ports/segmenter.port';
import type { PixelPool } from '../workers/pixel-pool';
import type { RawPixels } from '../workers/raw-pixels';
import type { ScenePlan } from './scene-plan';

/** An input of a scene: its bytes and header (already checked against the pixel limit). */
export interface SceneSource {
  bytes: Buffer;
  probe: ImageProbe;
}

export interface SceneResources {
  pool: Pick<PixelPool, 'run'>;
  profiles: Pick<ProfileFiles, 'path'>;
  maxPixels: number;
  segmenter?: Segmenter;
  backend: GenerativeBackend;
}

/** The images of a scene, with the time of each stage (milliseconds) and what the backend reported. */
export interface SceneOutcome {
  images: PipelineResult[];
  stages: Record<string, number>;
  backend: string;
  details: Record<string, string | number>;
}

/** Below this alpha a pixel is not part of the object (its box, the "useful alpha" test). */
const OBJECT_ALPHA = 8;
const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

/**
 * A scene: the object decoded (cut out with the segmentation port when it has no useful alpha), trimmed to its
 * box, placed on the canvas as the plan says; then, for each image, the backend's scene around it and the
 * object's own pixels composited on top (with the backend's tone for `adjust`), encoded. The product's pixels
 * are never taken from a backend's answer. `signal` ends the work between stages (the request's time limit).
 */
export async function composeScene(
  object: SceneSource,
  template: SceneSource | undefined,
  plan: ScenePlan,
  resources: SceneResources,
  signal: AbortSignal,
): Promise<SceneOutcome> {
  const stages: Record<string, number> = {};
  const timed = async <T>(stage: string, work: () => Promise<T>): Promise<T> => {
    signal.throwIfAborted();
    const started = performance.now();
    try {
      return await work();
    } finally {
      stages[stage] = Math.round((stages[stage] ?? 0) + performance.now() - started);
    }
  };
  const decoded = await timed('decode', () => decodeRgba(object, resources));
  const { pixels: cut, cutOut } = await timed('cutout', () => withObjectAlpha(decoded, object, resources));
  const layer = await timed('place', () => placeObject(cut, plan));
  const backdrop = template && (await timed('template', () => coverTemplate(template, plan, resources)));
  const objectImage = portImage(layer.pixels);
  const mask = portImage(await alphaOf(layer.pixels));
  const background = sceneBackground(plan, backdrop && portImage(backdrop));
  const transparent = plan.background.kind === 'shadows' && plan.background.colour.alpha === 0;
  const images: PipelineResult[] = [];
  let details: Record<string, string | number> = { cutout: cutOut ? 'segmentation' : 'own alpha' };
  for (let index = 0; index < plan.images; index += 1) {
    const job: SceneJob = {
      object: objectImage,
      mask,
      background,
      model: plan.generation.model,
      steps: plan.generation.steps,
      preference: plan.generation.preference,
      seed: plan.generation.seed + index,
      variant: index,
      text: {
        prompt: plan.generation.prompt,
        negativePrompt: plan.generation.negativePrompt,
        generate: plan.generation.generate,
        guidelines: plan.generation.guidelines,
        subject: layer.subject,
      },
      signal,
    };
    const result = await timed('generate', () => resources.backend.scene(job));
    if (index === 0) details = { ...details, ...result.details };
    const scene = await timed('compose', () =>
      fitGenerated(result.image, plan.width, plan.height, transparent ? 4 : 3),
    );
    const composed = await timed('compose', () => compositeObject(scene, layer.pixels, result.objectTone));
    images.push(await timed('encode', () => encodeScene(composed, plan)));
  }
  return { images, stages, backend: resources.backend.name, details };
}

/** The input as displayed, 8-bit sRGB with an alpha channel (BMP and HEIC decoded as for edits). */
async function decodeRgba(source: SceneSource, resources: SceneResources): Promise<RawPixels> {
  const stage = await decodeStep.open(stepContext(source, resources), true);
  return toRaw(stage.image.toColourspace('srgb').ensureAlpha());
}

/**
 * An alpha channel is useful when some of the image is transparent and some opaque: then it is the object's
 * mask. Otherwise the object is cut out (the segmentation port, the `products` tuning).
 */
async function withObjectAlpha(
  pixels: RawPixels,
  source: SceneSource,
  resources: SceneResources,
): Promise<{ pixels: RawPixels; cutOut: boolean }> {
  const alpha = (await rawImage(pixels).extractChannel(3).stats()).channels[0];
  if (source.probe.hasAlpha && alpha.min < 128 && alpha.mean < 250 && alpha.max >= 128) {
    return { pixels, cutOut: false };
  }
  const stage = await removeBackground(
    fromRaw({ ...pixels }),
    { subject: { category: 'products', largestOnly: false }, clipping: false },
    stepContext(source, resources),
  );
  return { pixels: await toRaw(stage.image.ensureAlpha()), cutOut: true };
}

/** The object trimmed to its box and placed on a transparent canvas of the plan's size. */
async function placeObject(pixels: RawPixels, plan: ScenePlan): Promise<{ pixels: RawPixels; subject: string }> {
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
  return { pixels: placed, subject: await describeObject(resized) };
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

/** The template cover-fitted to the canvas (centred), 3 channels. */
async function coverTemplate(source: SceneSource, plan: ScenePlan, resources: SceneResources): Promise<RawPixels> {
  const stage = await decodeStep.open(stepContext(source, resources), true);
  return toRaw(
    stage.image
      .resize({ width: plan.width, height: plan.height, fit: 'cover', position: 'centre' })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb'),
  );
}

function portColour(colour: Rgba | undefined): PortColour | undefined {
  return colour && { r: colour.r, g: colour.g, b: colour.b };
}

function sceneBackground(plan: ScenePlan, template: PortImage | undefined): SceneBackground {
  const background = plan.background;
  if (background.kind === 'shadows') {
    return {
      kind: 'shadows',
      colour: background.colour.alpha === 0 ? 'transparent' : portColour(background.colour)!,
      view: background.view,
    };
  }
  if (background.kind === 'prompt') return { kind: 'prompt', colour: portColour(background.colour) };
  return {
    kind: 'template',
    template: template!,
    mode: background.mode,
    view: background.view,
    colour: portColour(background.colour),
  };
}

async function alphaOf(pixels: RawPixels): Promise<RawPixels> {
  return toMask(rawImage(pixels).extractChannel(3));
}

/** The object's pixels (toned when the backend asks) over the scene; the scene's channels are kept. */
async function compositeObject(scene: RawPixels, object: RawPixels, tone: ObjectTone | undefined): Promise<RawPixels> {
  let layer = object;
  if (tone) {
    layer = await toRaw(rawImage(object).linear([...tone.gain, 1], [...tone.offset, 0]));
  }
  const composed = await toRaw(
    rawImage(scene).composite([
      {
        input: Buffer.from(layer.data.buffer, layer.data.byteOffset, layer.data.byteLength),
        raw: { width: layer.width, height: layer.height, channels: 4 },
      },
    ]),
  );
  if (scene.channels === 4 || composed.channels === scene.channels) return composed;
  return toRaw(rawImage(composed).removeAlpha());
}

async function encodeScene(pixels: RawPixels, plan: ScenePlan): Promise<PipelineResult> {
  const { data, info } = await encode(
    rawImage(pixels),
    { encode: plan.encode, colour: plan.colour },
    { space: 'srgb' },
  ).toBuffer({
    resolveWithObject: true,
  });
  return { data, format: plan.encode.format, width: info.width, height: info.height };
}

/** The context the shared operations (decode, background removal) read; a scene's "plan" encodes nothing. */
function stepContext(source: SceneSource, resources: SceneResources): StepContext {
  const plan: EditPlan = { encode: { format: 'png', compression: 'fast' }, colour: { space: 'rgb' } };
  return {
    bytes: source.bytes,
    probe: source.probe,
    plan,
    pool: resources.pool,
    profiles: resources.profiles,
    maxPixels: resources.maxPixels,
    segmenter: resources.segmenter,
  };
}

/**
 * Peak memory of a scene, estimated before anything is decoded (as edits are admitted): the object decoded and
 * cut out (about six RGBA frames of the input and, without alpha, the matte's planes at its working size), and
 * the canvas held as the object layer, its mask, the template, the backend's scene, the composite and the
 * encoder's frame (about eight RGBA canvas frames; the images are made one after the other).
 */
export function estimateSceneMemory(
  object: Pick<ImageProbe, 'width' | 'height'>,
  plan: Pick<ScenePlan, 'width' | 'height'>,
): number {
  const input = object.width * object.height;
  const matte = matteSize(object.width, object.height);
  const canvas = plan.width * plan.height;
  return input * 4 * 6 + matte.width * matte.height * 96 + canvas * 4 * 8;
}
