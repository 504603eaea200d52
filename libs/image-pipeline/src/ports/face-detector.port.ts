import type { Point, RawImage } from './segmenter.port';

/**
 * One face: its box, the detector's confidence (0..1), and the 68 landmarks of the iBUG 300-W scheme, 0-based
 * (0-16 jaw, 17-26 brows, 27-35 nose: 33 the subnasale, 36-47 eyes, 48-67 mouth: 51 the top of the upper lip).
 */
export interface DetectedFace {
  box: { left: number; top: number; width: number; height: number };
  score: number;
  landmarks: readonly Point[];
}

/** The landmarks the identity crop cuts between (0-based, 68-point scheme). */
export const SUBNASALE = 33;
export const UPPER_LIP_TOP = 51;

/**
 * Face detection with 68 landmarks, the port the identity crop consumes. libs/vision implements it; the pipeline
 * never sees a runtime. The caller scales the image so that its longer side is at most `inputSide` (the
 * detector's working resolution) and maps the answer back to full resolution itself.
 */
export abstract class FaceDetector {
  /** The longer side, in pixels, of the images {@link detect} is meant for: larger ones are refused. */
  abstract readonly inputSide: number;

  /**
   * Every face found in `rgb` (3 channels, 8-bit sRGB), in its pixel coordinates, most confident first; an empty
   * list when there is none. Runs off the event loop. Rejects with a ServiceException: 503 with Retry-After when
   * the model's queue is full, 501 when the model cannot be loaded here.
   */
  abstract detect(rgb: RawImage): Promise<DetectedFace[]>;
}
