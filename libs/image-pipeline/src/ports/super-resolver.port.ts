import type { UpscaleMode } from '../edit-plan';
import type { RawImage } from './segmenter.port';

/** What a super-resolution is for: an upscale mode of the contract, or `polish` (detail redrawn at the same size). */
export type SuperResolutionMode = UpscaleMode | 'polish';

/**
 * Super-resolution, the port the pipeline's upscale and polish steps consume. libs/vision implements it (the only
 * library that imports a model runtime); the pipeline never sees a runtime or a tensor, and makes the exact size
 * itself (sharp, Lanczos) from what this answers.
 */
export abstract class SuperResolver {
  /**
   * `rgb` (3 channels, 8-bit sRGB) enlarged by the model the mode uses, at the smallest of the model's scales that
   * reaches `factor` (the largest where none does): the answer is `scale` times the input on each side, so
   * usually larger than asked. Large images are processed in overlapping tiles, off the event loop. Rejects with
   * a ServiceException: 503 with Retry-After when the model's queue is full, 501 when it cannot be loaded here.
   */
  abstract upscale(rgb: RawImage, mode: SuperResolutionMode, factor: number): Promise<RawImage & { scale: number }>;

  /** The scale `upscale` will use for `mode` and `factor` (the result is that many times the input per side). */
  abstract scaleFor(mode: SuperResolutionMode, factor: number): number;
}
