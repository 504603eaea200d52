import type { GenerativeConfig } from '@app/common';
import type {
  GenerationOptions,
  GenerationPreference,
  PortColour,
  PortPixels,
  SceneBackground,
  SceneJob,
  StyleJob,
} from '@app/image-pipeline';
import { COLOUR_WORDS } from '../local/prompt-vocabulary';

/**
 * How a job becomes a generator's parameters, the same for the three HTTP adapters: the words, the steps, how much
 * of the init image is repainted (denoise), the seed, the size and the model. Each adapter then writes these in
 * its own protocol (docs/generator-protocols.md).
 */

/** Steps when the client gave none, by its preference. */
export const STEPS_BY_PREFERENCE: Readonly<Record<GenerationPreference, number>> = { fast: 12, optimal: 25, best: 40 };

/** The grey behind the object of a prompt scene without a colour: the generator paints over it entirely. */
export const NEUTRAL_GREY = 128;

export function jobSteps(job: Pick<GenerationOptions, 'steps' | 'preference'>): number {
  return job.steps ?? STEPS_BY_PREFERENCE[job.preference];
}

/**
 * The seed sent to a generator: the job's seed offset by its variant, so the request's images differ while the
 * same job with the same seed gives the same image. 0..2^32-1 (ComfyUI refuses negative seeds).
 */
export function jobSeed(job: Pick<GenerationOptions, 'seed' | 'variant'>): number {
  return (job.seed + job.variant) >>> 0;
}

/** The generator's model for the contract's `scene.model`; undefined: the generator's default. */
export function modelName(config: GenerativeConfig, model: GenerationOptions['model']): string | undefined {
  return config.models[model];
}

/**
 * How much a scene repaints outside the object (0..1): a prompt scene draws a new background (1.0); a template
 * `transform` keeps the template's layout and changes its look (0.75); `adjust` only touches it up (0.35).
 */
export function sceneDenoise(background: SceneBackground): number {
  if (background.kind === 'template') return background.mode === 'adjust' ? 0.35 : 0.75;
  return 1;
}

/** An outpaint fills new pixels only: nothing of the zeros under the mask is worth keeping. */
export const OUTPAINT_DENOISE = 1;

/**
 * The denoise of a style transfer (0.05..1), from the job's three strengths (0..1 each):
 * `(0.25 + 0.45 * denoisingStrength + 0.3 * styleStrength) * (1 - 0.4 * depthStrength)`.
 * Denoising and style both free the generator from the source's pixels (denoising more directly); depth keeps the
 * composition, so it takes back up to 40 %. All three at 0.5: 0.5 * 0.8 = 0.5.
 */
export function styleDenoise(job: Pick<StyleJob, 'styleStrength' | 'denoisingStrength' | 'depthStrength'>): number {
  const free = 0.25 + 0.45 * job.denoisingStrength + 0.3 * job.styleStrength;
  const value = free * (1 - 0.4 * job.depthStrength);
  return Math.round(Math.min(1, Math.max(0.05, value)) * 1000) / 1000;
}

/** The closest colour word of the local vocabulary, to put a backdrop colour into words. */
export function colourName(colour: PortColour): string {
  let best = 'grey';
  let bestDistance = Infinity;
  for (const [name, value] of Object.entries(COLOUR_WORDS)) {
    const distance = (value.r - colour.r) ** 2 + (value.g - colour.g) ** 2 + (value.b - colour.b) ** 2;
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/** The words of a scene's backdrop that the service knows (its colour, the template's view). */
export function backdropWords(background: SceneBackground): string {
  const colour = background.kind === 'shadows' ? undefined : background.colour;
  const words = [];
  if (background.kind === 'template') words.push(background.view === 'top' ? 'seen from above' : 'front view');
  if (colour) words.push(`${colourName(colour)} backdrop`);
  return words.join(', ');
}

/**
 * The prompt a generator gets: the client's prompt; with `generate`, the generator's caption of the image where it
 * has one, else one built from the object's subject ("a product photo of ..."); the backdrop's words and the
 * guidelines follow.
 */
export function promptText(job: GenerationOptions, context: { backdrop?: string; caption?: string } = {}): string {
  const { text } = job;
  const parts: string[] = [];
  if (text.generate || !text.prompt) {
    parts.push(context.caption?.trim() || `a product photo of ${text.subject}`);
  } else {
    parts.push(text.prompt);
  }
  if (context.backdrop) parts.push(context.backdrop);
  if (text.generate && text.guidelines) parts.push(text.guidelines);
  return parts.join(', ');
}

export function negativePrompt(job: GenerationOptions): string | undefined {
  return job.text.negativePrompt;
}

export interface SizeLimits {
  /** Each side a multiple of this. */
  multiple: number;
  min: number;
  max: number;
}

/**
 * The size to ask a generator for: the job's, scaled down (aspect kept) to fit `max`, each side rounded to a
 * multiple of `multiple` and at least `min`. The pipeline fits what comes back to the job's exact size.
 */
export function generatorSize(width: number, height: number, limits: SizeLimits): { width: number; height: number } {
  const scale = Math.min(1, limits.max / Math.max(width, height));
  const side = (value: number) =>
    Math.min(limits.max, Math.max(limits.min, Math.round((value * scale) / limits.multiple) * limits.multiple));
  return { width: side(width), height: side(height) };
}

/**
 * Whether a scene is the local backend's: shadows are drawn from the object's mask, and a locked template keeps its
 * pixels exactly; no generator is needed or wanted for either.
 */
export function isLocalScene(background: SceneBackground): boolean {
  return background.kind === 'shadows' || (background.kind === 'template' && background.mode === 'lock');
}

/**
 * What the init image of a scene stands on: the template (template scenes), else the backdrop colour of a prompt
 * scene or a neutral grey. The composite itself runs off the event loop (pixel-prep.ts).
 */
export function sceneBase(job: SceneJob): PortPixels | [number, number, number] {
  const { background } = job;
  if (background.kind === 'template') return background.template.pixels;
  const colour = background.kind === 'prompt' ? background.colour : undefined;
  return colour ? [colour.r, colour.g, colour.b] : [NEUTRAL_GREY, NEUTRAL_GREY, NEUTRAL_GREY];
}
