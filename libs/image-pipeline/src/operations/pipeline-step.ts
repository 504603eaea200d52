import type { ProfileFiles } from '../colour/profile-files';
import type { ImageProbe } from '../decode/probe';
import type { EditPlan } from '../edit-plan';
import type { Segmenter } from '../ports/segmenter.port';
import type { TextDetector } from '../ports/text-detector.port';
import type { FaceDetector } from '../ports/face-detector.port';
import type { SuperResolver } from '../ports/super-resolver.port';
import type { GenerativeBackend } from '../ports/generative.port';
import type { PixelPool } from '../workers/pixel-pool';
import type { StageImage } from './stage';

/** The phases of the contract's processing order (docs/api-contract.md, "Image edit"), by its names; a phase holds one or more steps. */
export const PIPELINE_PHASES = [
  'decode',
  'privacy',
  'restorations',
  'background',
  'padding',
  'resizing',
  'adjustments',
  'style transfer',
  // marks over the final pixels (a watermark): after every step that changes them, before encoding
  'overlay',
  'encode',
] as const;
export type PipelinePhase = (typeof PIPELINE_PHASES)[number];

/** The plan made again for the size a cropping step left (the same request; only sizes differ). */
export type Replan = (size: { width: number; height: number }) => EditPlan;

/** What every step of one run may read: the input, its header, the plan, and the shared resources. */
export interface StepContext {
  /** The input as received (decompress `auto` reads the JPEG's quantisation tables from it). */
  readonly bytes: Buffer;
  readonly probe: ImageProbe;
  /** The plan, as made for the size entering the current step (see {@link PipelineStep.crops}). */
  readonly plan: EditPlan;
  /** Absent: the plan is kept whatever a step crops (a caller that sizes nothing from the input). */
  readonly replan?: Replan;
  readonly pool: Pick<PixelPool, 'run'>;
  readonly profiles: Pick<ProfileFiles, 'path'>;
  /** MAX_INPUT_PIXELS, in pixels. */
  readonly maxPixels: number;
  /** Decode a JPEG despite libjpeg's warnings (the second try of {@link withJpegWarningsTolerated}). */
  readonly tolerateJpegWarnings?: boolean;
  /** The mask source of the background steps; absent where no segmentation model is installed. */
  readonly segmenter?: Segmenter;
  /** The text regions the plate blur reads; absent where no text detection model is installed. */
  readonly textDetector?: TextDetector;
  /** The faces of `upscale: faces` (face-detail.ts); absent where no face detection model is installed. */
  readonly faceDetector?: FaceDetector;
  /** The model of the upscale and polish steps; absent where no super-resolution model is installed. */
  readonly superResolver?: SuperResolver;
  /** The generator of outpaint and style transfer; absent where libs/generative is not loaded. */
  readonly generative?: GenerativeBackend;
  /** Images the plan refers to besides the input (the style reference), read before the run. */
  readonly assets?: EditAssets;
  /** Aborted when the client has gone: a generator call (outpaint, style transfer) stops and rejects. */
  readonly signal?: AbortSignal;
}

/** Whether the step, run with `part`, assumes 8-bit sRGB (PipelineStep.assumes8BitSrgb). */
export function assumes8Bit<Part>(step: PipelineStep<Part>, part: Part): boolean {
  return step.assumes8BitFor ? step.assumes8BitFor(part) : step.assumes8BitSrgb;
}

/** Images an edit reads besides its input, loaded by the caller (EditExecutor) before the pipeline runs. */
export interface EditAssets {
  /** The images registered operations read (EditOperation.assets), by operation name. */
  operations?: Readonly<Record<string, Buffer>>;
}

/**
 * One entry of the pipeline (pipeline-steps.ts), over its part of the plan. `partOf` reads only the plan and
 * answers undefined when the step is off, so an off step costs nothing and the runner knows in advance which
 * steps will run. `run` is a method so that a list of steps over different parts is one type.
 */
export interface PipelineStep<Part = unknown> {
  /** The operation, as logs and specs name it (`decompress`, `flatten`). */
  readonly name: string;
  readonly phase: PipelinePhase;
  /**
   * Its constants assume 8-bit sRGB values (0..255). A 16-bit input, which sharp works on in Display P3, is
   * then converted once right after decoding (decode.operation.ts), not before each such step.
   */
  readonly assumes8BitSrgb: boolean;
  /**
   * Given, it decides for each part instead of assumes8BitSrgb (a step whose parts differ: the privacy step's
   * identity crop works at any depth, its plate blur on 8-bit sRGB).
   */
  assumes8BitFor?(part: Part): boolean;
  /**
   * Its result may be smaller than its input (a crop to the object or below the faces). The later steps were
   * planned from the input's size, so the runner has them planned again for the size it leaves.
   */
  readonly crops?: boolean;
  partOf(plan: EditPlan): Part | undefined;
  run(stage: StageImage, part: Part, context: StepContext): Promise<StageImage>;
}

/** The first entry: it has no image to start from, so it opens one. */
export interface DecodeStep {
  readonly name: 'decode';
  readonly phase: 'decode';
  /** `toEightBit`: a later step that runs assumes 8-bit sRGB. */
  open(context: StepContext, toEightBit: boolean): Promise<StageImage>;
}
