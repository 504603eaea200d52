/**
 * The generative port: the three jobs that need a generator (a scene around an object, a fill outside an image,
 * an image restyled), as the pipeline asks for them. libs/generative implements it: a local deterministic backend
 * and HTTP adapters to generators a team runs (backend.factory.ts picks one from the configuration). The pipeline
 * prepares every image at its final size (decoding, placing, cover-fitting: sharp stays here) and re-composites
 * whatever comes back with the original pixels, so a backend never decides the size or redraws the product.
 */

/** 8-bit pixels, rows top to bottom, channels interleaved: 1 (a mask), 3 (sRGB) or 4 (sRGB + alpha). */
export interface PortPixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
}

/** An image handed to a backend: its pixels, and the same pixels as a PNG on demand (HTTP generators take files). */
export interface PortImage {
  readonly pixels: PortPixels;
  png(): Promise<Buffer>;
}

/**
 * What a backend answers: pixels (3 or 4 channels, the job's size), or an encoded image (PNG, JPEG or WebP, any
 * size) that the pipeline decodes and fits to the job's size.
 */
export type GeneratedImage = { pixels: PortPixels } | { encoded: Buffer };

/** An sRGB colour, channels 0..255. */
export interface PortColour {
  r: number;
  g: number;
  b: number;
}

/** The contract's `scene.model`. */
export type GenerationModel = 'v1' | 'v2-beta' | 'v2';
/** The contract's `preference`: time against quality. */
export type GenerationPreference = 'fast' | 'optimal' | 'best';

/**
 * The words of a job. `prompt` is the client's text; with `generate` the backend describes the image itself where
 * it can caption (else it builds a prompt from `subject`), and `guidelines` steer that description.
 */
export interface GenerationText {
  prompt?: string;
  negativePrompt?: string;
  generate: boolean;
  guidelines?: string;
  /** What the service knows of the object (its kind, colours, shape), in words: the prompt of last resort. */
  subject: string;
}

/** What every job carries besides its images. */
export interface GenerationOptions {
  model: GenerationModel;
  /** The client's `steps` (1..49); absent: the backend's default for the job. */
  steps?: number;
  preference: GenerationPreference;
  /** The same job with the same seed gives the same image (the local backend; generators that honour seeds). */
  seed: number;
  /** Which of the request's images this is (0-based): backends vary light or layout with it. */
  variant: number;
  text: GenerationText;
  /** Aborted when the request's time is up: a backend stops waiting and rejects. */
  signal: AbortSignal;
}

/** The scene behind the object. */
export type SceneBackground =
  | {
      kind: 'shadows';
      /** The backdrop's colour, or transparent (only the shadow has alpha). */
      colour: PortColour | 'transparent';
      view: 'auto' | 'top' | 'front';
    }
  | { kind: 'prompt'; colour?: PortColour }
  | {
      kind: 'template';
      /** The template, cover-fitted to the canvas: 3 channels, the job's size. */
      template: PortImage;
      mode: 'transform' | 'adjust' | 'lock';
      view: 'top' | 'front';
      colour?: PortColour;
    };

export interface SceneJob extends GenerationOptions {
  /** The object at its place on the canvas: 4 channels, the output's size; alpha is the object's mask. */
  object: PortImage;
  /** The object's mask: 1 channel, the output's size, 255 inside the object. Generators paint outside it. */
  mask: PortImage;
  background: SceneBackground;
}

/** A per-channel linear change (`v * gain + offset`, 0..255) the pipeline applies to the object's pixels. */
export interface ObjectTone {
  gain: [number, number, number];
  offset: [number, number, number];
}

export interface SceneResult {
  /** The whole scene at the output's size (4 channels only for a transparent backdrop); the object may be drawn. */
  image: GeneratedImage;
  /** `adjust`: the object's colour and light harmonised to the template (its pixels are otherwise kept). */
  objectTone?: ObjectTone;
  /** Facts for `data.profiling` (the view `auto` chose, the generator's prompt id ...): short strings or numbers. */
  details?: Record<string, string | number>;
}

/** A box in pixels (origin top-left). */
export interface PortBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface OutpaintJob extends GenerationOptions {
  /** The extended canvas: 3 channels, the original at `inner`, zeros elsewhere. */
  image: PortImage;
  /** 1 channel, the canvas's size: 255 where pixels are to be generated (outside `inner`), 0 inside. */
  mask: PortImage;
  inner: PortBox;
  /** Width of the blend inside the original, in pixels, across its left/right and its top/bottom edges. */
  feather: { x: number; y: number };
  /**
   * 1 channel, the canvas's size: 255 where the original shows its salient object (the segmentation mask,
   * widened), which a fill that copies from the image must not copy; absent where no segmenter is installed or
   * the object fills most of the image.
   */
  object?: PortImage;
}

export interface StyleJob extends GenerationOptions {
  /** 3 channels. */
  image: PortImage;
  /** 3 channels, any size. */
  reference?: PortImage;
  /** 0..1: more of the reference's (or the prompt's) style. */
  styleStrength: number;
  /** 0..1: more freedom in colour and texture. */
  denoisingStrength: number;
  /** 0..1: more of the image's composition and shapes kept. */
  depthStrength: number;
  /**
   * 1 channel, the image's size: 255 on the image's salient object (the segmentation mask), which keeps its own
   * colours (a restyled product must stay the product); absent where no segmenter is installed or the object
   * covers most of the image.
   */
  object?: PortImage;
}

export abstract class GenerativeBackend {
  /** `local`, `comfyui`, `automatic1111` or `openai`: named in profiling and in a failing generator's errors. */
  abstract readonly name: string;

  /** A scene around the object. Rejects with a ServiceException (502/504 naming the generator) when it fails. */
  abstract scene(job: SceneJob): Promise<SceneResult>;

  /** The canvas filled outside `inner`, seamlessly: the whole canvas. */
  abstract outpaint(job: OutpaintJob): Promise<GeneratedImage>;

  /** The image restyled, the same size. */
  abstract styleTransfer(job: StyleJob): Promise<GeneratedImage>;
}
