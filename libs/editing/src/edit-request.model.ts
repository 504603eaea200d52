/*
 * The edit request as the service uses it: validated, unions resolved, the contract's defaults filled. Types
 * only, so that parseEditRequest and the resolvers in dto/ that build it, and the planner that reads it, all
 * import it without importing each other. Sizes and side lengths stay relative (pixels or percentages of the
 * input); the service turns them into an EditPlan once the image size is known, and checks there what needs it
 * (pixel padding and outpaint_by at most 50% of the side, target pixel limits, CMYK or transparency against the
 * format it picks when none is given).
 */

import type { PngCompression } from './dto/format-options.dto';
import type { CmykProfile } from './dto/output.dto';
import type { BoxFitType, CropPosition } from './dto/resizing.dto';
import type { Colour, SideLengths, Size } from './dto/edit-values';

export type { Colour, SideLengths, Size };

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

/** Only the groups the request names are present. */
export interface EditOperations {
  resizing?: Resizing;
  /** The registered operations' values (operations/), by member name (`watermark`). */
  registered?: Readonly<Record<string, unknown>>;
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
