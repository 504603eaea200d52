import type { UpscaleMode } from '../edit-plan';
import type { RawImage } from './segmenter.port';

/**
 * What a super-resolution is for: an upscale mode of the contract, `polish` (detail redrawn at the same size), or
 * `face` (a face region of the `faces` mode, enlarged again with the network best at faces: face-detail.ts).
 */
export type SuperResolutionMode = UpscaleMode | 'polish' | 'face';

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

  /**
   * Which network `upscale` runs for `mode` on an input of `pixels` (a name; equal names, the same network): the
   * `faces` mode enlarges its faces again only where the face's network differs from the whole image's.
   */
  abstract network(mode: SuperResolutionMode, pixels: number): string;

  /** The scale `upscale` will use for `mode` and `factor` (the result is that many times the input per side). */
  abstract scaleFor(mode: SuperResolutionMode, factor: number): number;
}
