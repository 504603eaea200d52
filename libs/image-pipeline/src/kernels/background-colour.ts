import type { RawPixels } from '../workers/raw-pixels';
import { boxMean } from './guided-filter';

/** Alpha (0..255) at or below which a pixel counts as background for the colour estimate. */
const BACKGROUND_ALPHA = 4;

/**
 * The background's local colour near each pixel, on a grid of cells of radius / 2 pixels (it varies slowly; the
 * decontamination interpolates it): the mean of the clearly-background pixels (alpha <= BACKGROUND_ALPHA)
 * within about `radius`, widened four times where none is that close; the image's own colour where still none
 * (deep inside the object, where alpha is 255 and the estimate is not used).
 */
export function backgroundColour(image: RawPixels, alpha: Uint8Array, radius: number): RawPixels {
  const { width, height, data } = image;
  const cell = Math.max(1, Math.floor(radius / 2));
  const w = Math.ceil(width / cell);
  const h = Math.ceil(height / cell);
  // per cell: the sum of background weight, of each channel over background pixels, and of each channel overall
  const sums = Array.from({ length: 7 }, () => new Float32Array(w * h));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const at = ((y / cell) | 0) * w + ((x / cell) | 0);
      const weight = alpha[i] <= BACKGROUND_ALPHA ? 1 : 0;
      sums[0][at] += weight;
      for (let c = 0; c < 3; c++) {
        sums[c + 1][at] += weight * data[i * 3 + c];
        sums[c + 4][at] += data[i * 3 + c];
      }
    }
  }
  const reach = Math.max(1, Math.round(radius / cell));
  const near = sums.slice(0, 4).map((plane) => boxMean({ data: plane, width: w, height: h }, reach).data);
  const far = sums.slice(0, 4).map((plane) => boxMean({ data: plane, width: w, height: h }, reach * 4).data);
  const out = new Uint8Array(w * h * 3);
  for (let i = 0; i < w * h; i++) {
    const found = near[0][i] > 1e-4 ? near : far[0][i] > 1e-4 ? far : undefined;
    for (let c = 0; c < 3; c++) {
      out[i * 3 + c] = Math.round(
        found ? found[c + 1][i] / found[0][i] : sums[c + 4][i] / Math.max(1, cellPixels(i, w, cell, width, height)),
      );
    }
  }
  return { data: out, width: w, height: h, channels: 3 };
}

/** Pixels in cell `i` of a grid `w` cells wide over a `width` x `height` image (edge cells are partial). */
function cellPixels(i: number, w: number, cell: number, width: number, height: number): number {
  const cx = i % w;
  const cy = (i - cx) / w;
  return (Math.min(width, (cx + 1) * cell) - cx * cell) * (Math.min(height, (cy + 1) * cell) - cy * cell);
}

/** The colour of `image` (3 channels) at (fx, fy) in its own pixels, bilinearly, into `out`. */
export function sampleBilinear(image: RawPixels, fx: number, fy: number, out: number[]): void {
  const { width, height, data } = image;
  const x = Math.min(width - 1, Math.max(0, fx));
  const y = Math.min(height - 1, Math.max(0, fy));
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const x1 = Math.min(width - 1, x0 + 1);
  const y1 = Math.min(height - 1, y0 + 1);
  const tx = x - x0;
  const ty = y - y0;
  for (let c = 0; c < 3; c++) {
    const top = data[(y0 * width + x0) * 3 + c] * (1 - tx) + data[(y0 * width + x1) * 3 + c] * tx;
    const bottom = data[(y1 * width + x0) * 3 + c] * (1 - tx) + data[(y1 * width + x1) * 3 + c] * tx;
    out[c] = top * (1 - ty) + bottom * ty;
  }
}
