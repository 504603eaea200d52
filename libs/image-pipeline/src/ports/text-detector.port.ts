import type { Point, RawImage } from './segmenter.port';

/**
 * One line or word of text: its enclosing rectangle, possibly rotated, as four corners in order around it
 * (clockwise on screen, starting from the top-left one), and the detector's confidence 0..1.
 */
export interface TextRegion {
  points: [Point, Point, Point, Point];
  score: number;
}

/**
 * Text detection, the port the pipeline's plate blur consumes. libs/vision implements it (PP-OCRv4 detection on
 * ONNX Runtime); the pipeline never sees a runtime or a tensor. It answers where text is, never what it says.
 */
export abstract class TextDetector {
  /**
   * The longest side, in pixels, at which the detector works: a caller scales a larger image down to it first
   * (sharp), and maps the regions back (a bigger image would be scaled down inside all the same).
   */
  abstract readonly maxSide: number;

  /**
   * The text regions of `rgb` (3 channels, 8-bit sRGB, any size up to {@link maxSide} per side), in its pixel
   * coordinates. Runs off the event loop. Rejects with a ServiceException: 503 with Retry-After when the model's
   * queue is full, 501 when the model cannot be loaded here.
   */
  abstract detect(rgb: RawImage): Promise<TextRegion[]>;
}
