import type { OutputMediaType } from '@app/common';
import type { SegmentationCategory } from './ports/segmenter.port';

/**
 * The typed, normalised form of an edit that {@link ImagePipeline} runs. Everything here is resolved:
 * percentages are pixels, defaults are filled, colours are numbers. The pipeline parses nothing.
 * Steps run in the order of PIPELINE_STEPS (pipeline-steps.ts), each when its part of the plan is set.
 */

/** A colour with channels 0..255 and alpha 0..1 (0 is fully transparent). */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  alpha: number;
}

/** Artefact removal strength; `auto` picks from the estimated JPEG quality (none when the input is clean). */
export type DecompressStrength = 'moderate' | 'strong' | 'auto';

/** Pixels added on each side. */
export interface Sides {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/**
 * How the image entering the resize stage becomes `width` x `height`.
 * - `scale`: resized to exactly width x height (the planner kept the aspect ratio, bounds and cover).
 * - `crop`: resized to cover width x height, then cropped at the centre or at the most interesting region.
 * - `canvas`: resized to `inner` (the image itself, never enlarged), centred on a width x height canvas of `fill`.
 */
export type ResizePlan =
  | { mode: 'scale'; width: number; height: number; upscale?: UpscalePlan }
  | { mode: 'crop'; width: number; height: number; position: 'center' | 'smart'; upscale?: UpscalePlan }
  | { mode: 'canvas'; width: number; height: number; inner: { width: number; height: number }; fill: Rgba };

/** The contract's `restorations.upscale`: which kind of image the super-resolution model is chosen for. */
export type UpscaleMode = 'photo' | 'smart_enhance' | 'digital_art' | 'faces' | 'smart_resize';

/**
 * Super-resolution when resizing enlarges (the SuperResolver port): the model of `mode` enlarges the image by its
 * scale, then the resize makes the exact size (Lanczos).
 */
export interface UpscalePlan {
  mode: UpscaleMode;
}

/** Local tone mapping: 0..100 (0 is the identity); `stitching` wraps left and right edges (360 panoramas). */
export interface HdrPlan {
  intensity: number;
  stitching: boolean;
}

/**
 * Global adjustments, each -100..100 (sharpness 0..100); 0 is the identity. The part of the registered
 * `adjustments` operation (libs/editing, operations/adjustments/), run by adjust.operation.ts's `adjust`.
 */
export interface AdjustPlan {
  exposure: number;
  saturation: number;
  contrast: number;
  sharpness: number;
  hdr?: HdrPlan;
}

/**
 * Which object the background steps keep: the Segmenter's mask for `category`, refined as that category asks
 * (kernels/matte.kernel.ts, MATTE_TUNING). `largestOnly` (`selective.object_to_keep`) keeps only the most salient
 * connected object of the mask; the description itself is not read (no model here understands text).
 */
export interface SubjectPlan {
  category: SegmentationCategory;
  largestOnly: boolean;
}

/** Background removal: the object kept with an alpha channel; `clipping` crops to the object's box. */
export interface RemoveBackgroundPlan {
  subject: SubjectPlan;
  clipping: boolean;
}

/**
 * Background blur around the object, which stays sharp. `gaussian`: `radius` is the sigma; `lens`: the radius of
 * the disc (bokeh) kernel. In pixels of the image entering the step (the input at its display size).
 */
export interface BlurBackgroundPlan {
  subject: SubjectPlan;
  kind: 'gaussian' | 'lens';
  radius: number;
}

/** The formats an edit writes (the one format table: libs/common/src/media/media-type.ts). */
export type OutputFormat = OutputMediaType;
export type CmykProfileName = 'ISO_Coated' | 'ISO_Uncoated' | 'USWeb_Coated' | 'USWeb_Uncoated';

export type EncodePlan =
  | { format: 'jpeg'; quality: number; progressive: boolean }
  | { format: 'png'; compression: 'fast' | 'optimal' | 'best' }
  | { format: 'webp'; lossless: boolean; quality: number }
  | { format: 'avif'; lossless: boolean; quality: number }
  | { format: 'tiff'; compression: 'lzw' | 'jpeg'; quality: number };

/**
 * The colour space of the output.
 * - `auto`: RGB input leaves as RGB with sRGB embedded; CMYK and grey input keep their space and profile
 *   (CMYK falls back to sRGB for formats that cannot hold it).
 * - `rgb`: sRGB with its profile embedded, whatever the input (asked for with `color_space: "RGB"`).
 * - `cmyk`: converted with one of the shipped profiles (jpeg only; the planner refuses other formats).
 */
export type ColourPlan = { space: 'auto' } | { space: 'rgb' } | { space: 'cmyk'; profile: CmykProfileName };

/**
 * Privacy: the identity crop keeps the rows from `top` down (the display size's rows; `top` > 0): the rows above
 * hold the faces down to between nose and mouth (libs/editing's registered `privacy` operation).
 */
export interface IdentityCropPlan {
  top: number;
}

/**
 * `fit: outpaint`: the image (as it enters resizing) scaled to `inner` on a `width` x `height` canvas, and the
 * rest generated by the GenerativeBackend port; `feather` pixels inside the image's edges (across its left/right
 * and top/bottom) blend the generated fill into it. The image's own pixels are kept beyond that band.
 */
export interface OutpaintPlan {
  width: number;
  height: number;
  inner: { left: number; top: number; width: number; height: number };
  feather: { x: number; y: number };
}

/**
 * `style_transfer` (the part of libs/editing's registered `generative` operation): the image restyled by the
 * GenerativeBackend port towards the reference image (loaded with the input: EditAssets) or the prompt;
 * strengths 0..1.
 */
export interface StyleTransferPlan {
  prompt?: string;
  reference: boolean;
  styleStrength: number;
  denoisingStrength: number;
  depthStrength: number;
}

export interface EditPlan {
  /**
   * What transparent pixels become: a colour to flatten onto, or undefined to keep the alpha channel
   * (the planner keeps it only when the output format can hold it).
   */
  flatten?: Rgba;
  resize?: ResizePlan;
  /** Resizing by `fit: outpaint` (then `resize` is absent). */
  outpaint?: OutpaintPlan;
  encode: EncodePlan;
  colour: ColourPlan;
  /** Resolution written into the file, in dots per inch. */
  dpi?: number;
  /**
   * The parts of the registered operations (libs/editing, operations/), by name: each run by its registered step
   * (operations/registered-steps.ts) and counted by its memory. Absent: none asked for.
   */
  operations?: Readonly<Record<string, unknown>>;
}
