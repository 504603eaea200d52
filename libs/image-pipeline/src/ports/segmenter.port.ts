/** 8-bit pixels in memory: rows top to bottom, channels interleaved (1: grey or alpha, 3: sRGB). */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 3;
}

/**
 * A point in pixels of the image given to a detector port (x right, y down, origin at the top-left corner; a
 * detector may answer points just outside the image).
 */
export interface Point {
  x: number;
  y: number;
}

/** The contract's `background.remove.category`: what kind of object the image shows. */
export type SegmentationCategory = 'general' | 'products' | 'cars';

/**
 * Salient-object segmentation, the port the pipeline's background steps consume. libs/vision implements it (the
 * only library that imports a model runtime); the pipeline never sees a runtime or a tensor. The pipeline scales
 * the image to `inputSize` (sharp), asks for the coarse mask there, and refines it at full resolution itself.
 */
export abstract class Segmenter {
  /** The model's input size in pixels: the image given to {@link mask} has exactly this size. */
  abstract readonly inputSize: { width: number; height: number };

  /**
   * Foreground probability per pixel, 0 (background) .. 255 (object), as a 1-channel image of the same size as
   * `rgb` (3 channels, 8-bit sRGB, `inputSize`). Runs off the event loop. Rejects with a ServiceException: 503
   * with Retry-After when the model's queue is full, 501 when the model cannot be loaded here.
   */
  abstract mask(rgb: RawImage, category: SegmentationCategory): Promise<RawImage>;
}
