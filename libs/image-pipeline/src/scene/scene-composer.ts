import type { ProfileFiles } from '../colour/profile-files';
import type { ImageProbe } from '../decode/probe';
import type { EditPlan, Rgba } from '../edit-plan';
import type { PipelineResult } from '../image-pipeline';
import { removeBackground } from '../operations/background-removal.operation';
import { decodeStep } from '../operations/decode.operation';
import { encode } from '../operations/encode.operation';
import { fitGenerated, portImage } from '../operations/generative.operation';
import { generatedAnswerBytes, type GeneratorAnswerLimits } from '../memory-estimate';
import type { StepContext } from '../operations/pipeline-step';
import { fromRaw, toMask, toRaw } from '../operations/stage';
import { matteSize, rawImage } from '../operations/subject-matte';
import type {
  GenerativeBackend,
  ObjectTone,
  PortColour,
  PortImage,
  SceneBackground,
  SceneJob,
} from '../ports/generative.port';
import type { Segmenter } from '../ports/segmenter.port';
import type { PixelPool } from '../workers/pixel-pool';
import type { RawPixels } from '../workers/raw-pixels';
import type { ScenePlan } from './scene-plan';
import { superResolve } from '../operations/upscale.operation';
import type { SuperResolver } from '../ports/super-resolver.port';
import { placeObject, type Enlarger } from './scene-placement';

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
  /** Enlarges an object placed larger than its own pixels; absent where no network is installed (Lanczos). */
  superResolver?: SuperResolver;
  backend: GenerativeBackend;
  /** Decode JPEG despite libjpeg's warnings (the second try of withJpegWarningsTolerated). */
  tolerateJpegWarnings?: boolean;
}

/** The images of a scene, with the time of each stage (milliseconds) and what the backend reported. */
export interface SceneOutcome {
  images: PipelineResult[];
  stages: Record<string, number>;
  backend: string;
  details: Record<string, string | number>;
}

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
  const layer = await timed('place', () => placeObject(cut, plan, enlarger(object, resources)));
  const backdrop = template && (await timed('template', () => coverTemplate(template, plan, resources)));
  const objectImage = portImage(layer.pixels);
  const mask = portImage(await alphaOf(layer.pixels));
  const background = sceneBackground(plan, backdrop && portImage(backdrop));
  const transparent = plan.background.kind === 'shadows' && plan.background.colour.alpha === 0;
  const images: PipelineResult[] = [];
  let details: Record<string, string | number> = {
    cutout: cutOut ? 'segmentation' : 'own alpha',
    ...(layer.enlarged && { enlarged: layer.enlarged }),
  };
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
      fitGenerated(result.image, plan.width, plan.height, transparent ? 4 : 3, resources.maxPixels),
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

/**
 * The upscale step's super-resolution (the `photo` network: slim, the one for photographs) for an object placed
 * larger than its pixels, with the input's alpha enlarged beside it.
 */
function enlarger(source: SceneSource, resources: SceneResources): Enlarger | undefined {
  const { superResolver } = resources;
  if (!superResolver) return undefined;
  const context = { ...stepContext(source, resources), superResolver };
  return async (pixels, factor) => toRaw((await superResolve(fromRaw(pixels), 'photo', factor, context)).image);
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
    tolerateJpegWarnings: resources.tolerateJpegWarnings,
  };
}

/**
 * Peak memory of a scene in bytes, estimated before anything is decoded (as edits are admitted): the object decoded
 * and cut out (about six RGBA frames of the input and, without alpha, the matte's planes at its working size); the
 * template, when there is one, decoded whole before it is cover-fitted (two RGBA frames of its own size: decoded
 * and resized, the larger of which libvips holds at once); the canvas held as the object layer, its mask, the
 * cover-fitted template, the backend's scene, the composite and the encoder's frame (about eight RGBA canvas
 * frames; the images are made one after the other); the super-resolution of an object placed larger than its
 * pixels (the network's output, at most (2 / 1.5)^2 < 2 times the object's placed size, as RGB and RGBA: counted
 * whenever it may happen, as the object's box is not known before decoding); and `answer`: the limits of an HTTP
 * generator's encoded answer, read and decoded one image at a time (absent: a backend that answers pixels).
 */
export function estimateSceneMemory(
  object: Pick<ImageProbe, 'width' | 'height'>,
  plan: Pick<ScenePlan, 'width' | 'height'>,
  extra: { template?: Pick<ImageProbe, 'width' | 'height'>; answer?: GeneratorAnswerLimits } = {},
): number {
  const input = object.width * object.height;
  const matte = matteSize(object.width, object.height);
  const canvas = plan.width * plan.height;
  const backdrop = extra.template ? extra.template.width * extra.template.height * 4 * 2 : 0;
  const answered = extra.answer ? generatedAnswerBytes(canvas, extra.answer) : 0;
  const enlarged = canvas * 2 * 4 * 2;
  return input * 4 * 6 + matte.width * matte.height * 96 + backdrop + canvas * 4 * 8 + enlarged + answered;
}
