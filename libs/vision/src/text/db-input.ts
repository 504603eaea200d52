/**
 * The input of a DB (Differentiable Binarization) text detector such as PP-OCRv4's, made the way PaddleOCR's
 * inference feeds it (DetResizeForTest with limit_type `max`, then NormalizeImage and ToCHWImage): the image
 * scaled so that its longer side is at most `maxSide`, each side rounded to a multiple of 32 (at least 32), the
 * aspect ratio changing by that rounding only; values / 255, ImageNet mean and std per channel, channels in
 * PaddleOCR's order (it reads images with OpenCV, so B, G, R: the model was trained on that order).
 */

const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];
const STRIDE = 32;

/** The detector's input size for an image of `width` x `height`. */
export function detectorSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const ratio = Math.max(width, height) > maxSide ? maxSide / Math.max(width, height) : 1;
  const round = (side: number) => Math.max(STRIDE, Math.round((side * ratio) / STRIDE) * STRIDE);
  return { width: round(width), height: round(height) };
}

/**
 * `rgb` (interleaved 8-bit RGB, `width` x `height`) resized bilinearly to `size` and normalised: NCHW float32,
 * channel 0 blue, 1 green, 2 red.
 */
export function toDetectorTensor(
  rgb: Uint8Array,
  width: number,
  height: number,
  size: { width: number; height: number },
): Float32Array {
  const { width: w, height: h } = size;
  const plane = w * h;
  const tensor = new Float32Array(plane * 3);
  const sx = width / w;
  const sy = height / h;
  for (let y = 0; y < h; y++) {
    // pixel centres aligned, as OpenCV's INTER_LINEAR does
    const fy = Math.min(Math.max((y + 0.5) * sy - 0.5, 0), height - 1);
    const y0 = Math.floor(fy);
    const y1 = Math.min(y0 + 1, height - 1);
    const wy = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(Math.max((x + 0.5) * sx - 0.5, 0), width - 1);
      const x0 = Math.floor(fx);
      const x1 = Math.min(x0 + 1, width - 1);
      const wx = fx - x0;
      const a = (y0 * width + x0) * 3;
      const b = (y0 * width + x1) * 3;
      const c = (y1 * width + x0) * 3;
      const d = (y1 * width + x1) * 3;
      const out = y * w + x;
      for (let channel = 0; channel < 3; channel++) {
        const top = rgb[a + channel] * (1 - wx) + rgb[b + channel] * wx;
        const bottom = rgb[c + channel] * (1 - wx) + rgb[d + channel] * wx;
        const value = (top * (1 - wy) + bottom * wy) / 255;
        // RGB channel 0 (red) goes to plane 2: the BGR order
        const bgr = 2 - channel;
        tensor[bgr * plane + out] = (value - MEAN[bgr]) / STD[bgr];
      }
    }
  }
  return tensor;
}
