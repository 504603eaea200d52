import { ServiceException } from '@app/common';
import type { BlurLevel, BlurType, ObjectCategory } from './dto/background.dto';
import { absent, isPlainObject, Issues, memberOf, validateShape } from './dto/dto-validation';
import { EditRequestDto } from './dto/edit-request.dto';
import { checkLocation, INPUT_MAX_LENGTH, type Colour, type SideLengths, type Size } from './dto/edit-values';
import type { PngCompression } from './dto/format-options.dto';
import type { DecompressStrength, UpscaleModel } from './dto/operations.dto';
import { readOperations } from './dto/operations.resolver';
import type { CmykProfile } from './dto/output.dto';
import { readOutput } from './dto/output.resolver';
import type { BoxFitType, CropPosition } from './dto/resizing.dto';

export type { Colour, SideLengths, Size } from './dto/edit-values';

/*
 * The edit request as the service uses it: validated, unions resolved, the contract's defaults filled. Sizes and
 * side lengths stay relative (pixels or percentages of the input); the service turns them into an EditPlan once
 * the image size is known, and checks there what needs it (pixel padding and outpaint_by at most 50% of the
 * side, target pixel limits, CMYK or transparency against the format it picks when none is given).
 */

export interface Restorations {
  upscale?: UpscaleModel;
  decompress?: DecompressStrength;
  polish: boolean;
}

export type Fit =
  | { type: 'crop'; crop: CropPosition }
  | { type: BoxFitType }
  /** `feathering`: percent of the input side, 0..50. */
  | { type: 'outpaint'; feathering?: number; outpaint_by?: SideLengths };

/** Both sizes absent: the size is unchanged (with outpaint: extended only). */
export interface Resizing {
  width?: Size;
  height?: Size;
  fit: Fit;
}

/** Intensity 0..100. */
export interface Hdr {
  intensity: number;
  stitching: boolean;
}

/** Exposure, saturation and contrast -100..100; sharpness 0..100; absent is no change. */
export interface Adjustments {
  hdr?: Hdr;
  exposure?: number;
  saturation?: number;
  contrast?: number;
  sharpness?: number;
}

/** What to keep: a category of object, or an object described in 3..128 characters. */
export type ObjectSelection = { category: ObjectCategory } | { selective: { object_to_keep: string } };
export type BackgroundRemoval = ObjectSelection & { clipping: boolean };
export type BackgroundBlur = ObjectSelection & { type: BlurType; level: BlurLevel };

/** Absent members mean: no removal, the default colour (white, or transparent where possible), no blur. */
export interface Background {
  remove?: BackgroundRemoval;
  color?: Colour;
  blur?: BackgroundBlur;
}

export interface Privacy {
  blur_car_plate: boolean;
  identity_crop: boolean;
}

/** At least one of the reference image and the prompt; strengths 0..1. */
export interface StyleTransfer {
  style_reference_image?: string;
  prompt?: string;
  style_strength: number;
  denoising_strength: number;
  depth_strength: number;
}

export interface Generative {
  style_transfer?: StyleTransfer;
}

/** Only the groups the request names are present. */
export interface EditOperations {
  restorations?: Restorations;
  resizing?: Resizing;
  adjustments?: Adjustments;
  background?: Background;
  padding?: SideLengths;
  privacy?: Privacy;
  generative?: Generative;
}

export type Compression = { type: 'lossless' } | { type: 'lossy'; quality?: number };

/** Quality 1..100. tiff `lzw` is lossless; tiff `jpeg` is lossy. */
export type FormatOptions =
  | { type: 'jpeg'; quality: number; progressive: boolean }
  | { type: 'png'; compression: PngCompression }
  | { type: 'webp' | 'avif'; lossless: true }
  | { type: 'webp' | 'avif'; lossless: false; quality: number }
  | { type: 'tiff'; compression: 'lzw' }
  | { type: 'tiff'; compression: 'jpeg'; quality: number };

export type ColorSpace = { type: 'RGB' } | { type: 'CMYK'; color_profile: CmykProfile };

/** `dpi` 1..10000. No colour space: the input's is kept (RGB gets sRGB). */
export interface OutputMetadata {
  dpi?: number;
  color_space?: ColorSpace;
}

/** No destination: the temporary bucket. No format: the caller's default (the input's, or jpeg for batch). */
export interface EditOutput {
  destination?: string;
  format?: FormatOptions;
  metadata?: OutputMetadata;
}

export interface EditRequest {
  /**
   * An http(s) URL or a `storage://` file reference, 1..512 characters. Present exactly when parsed with
   * `input: 'required'`; absent for uploads, where the image is the uploaded file.
   */
  input?: string;
  operations: EditOperations;
  output: EditOutput;
}

export interface ParseEditOptions {
  /** `required` for edits by URL or storage reference; `absent` for uploads, where `input` is refused. */
  input: 'required' | 'absent';
  /** Top-level members the caller reads itself (a task's `webhook_url`): suggested for a misspelt member too. */
  otherMembers?: readonly string[];
}

function readInput(body: Record<string, unknown>, mode: ParseEditOptions['input'], issues: Issues): void {
  const present = !absent(body.input);
  if (mode === 'absent') {
    if (present) issues.add('input', 'input must not be given: the image is the uploaded file');
    return;
  }
  if (!present) {
    issues.add('input', 'input is required');
    return;
  }
  const problem = checkLocation(body.input, INPUT_MAX_LENGTH, 'refuse');
  if (problem !== undefined) issues.add('input', `input ${problem}`);
}

/**
 * Rules across operations and output: a transparent background needs a format that can hold it. Read from the raw
 * members, so that the conflict is reported even when either side has problems of its own.
 */
function checkAcross(body: Record<string, unknown>, issues: Issues): void {
  const colour = memberOf(memberOf(body.operations, 'background'), 'color');
  const format = memberOf(body.output, 'format');
  const formatType = isPlainObject(format) ? format.type : format;
  if (colour === 'transparent' && formatType === 'jpeg') {
    issues.add(
      'operations.background.color',
      'transparent is not possible with jpeg output; use png, webp, avif or tiff',
    );
  }
}

/**
 * Validates an edit request body and returns it normalised. Every problem of the body is answered together in
 * one 422 (`ServiceException.validation`) whose details map dotted paths (`operations.resizing.width`) to
 * messages; a body that is not an object is 422 at `body`.
 */
export function parseEditRequest(
  body: unknown,
  options: ParseEditOptions & { input: 'required' },
): EditRequest & { input: string };
export function parseEditRequest(body: unknown, options: ParseEditOptions): EditRequest;
export function parseEditRequest(body: unknown, options: ParseEditOptions): EditRequest {
  if (!isPlainObject(body)) throw ServiceException.validation({ body: ['must be a JSON object'] });
  const issues = new Issues();
  validateShape(EditRequestDto, body, '', issues, { alsoKnown: options.otherMembers });
  readInput(body, options.input, issues);
  const operations = readOperations(body.operations, 'operations', issues);
  const output = readOutput(body.output, 'output', issues);
  checkAcross(body, issues);
  issues.throwIfAny();
  const request = { operations, output: output ?? {} };
  return options.input === 'required' ? { input: body.input as string, ...request } : request;
}
