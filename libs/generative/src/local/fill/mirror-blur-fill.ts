import { boxMean } from '@app/image-pipeline/planes';
import type { OutpaintInput } from './outpaint-fill';

/** Blur radius of the baseline's new area, px (two box means: about a Gaussian of sigma 6). */
const BLUR_RADIUS = 6;

/**
 * The naive baseline the bench and the specs compare outpaintFill with: the original mirrored outward across its
 * edges (reflecting again for extensions wider than the original), then the new area blurred. The original's pixels
 * are kept; `feather`, `seed`, `variant` and `preference` are ignored.
 */
export function mirrorBlurFill(input: OutpaintInput): Uint8Array {
  const { width, height, inner, data } = input;
  const out = Uint8Array.from(data);
  if (inner.width <= 0 || inner.height <= 0) return out;
  const right = inner.left + inner.width;
  const bottom = inner.top + inner.height;
  for (let y = 0; y < height; y++) {
    const sy = inner.top + reflect(y - inner.top, inner.height);
    for (let x = 0; x < width; x++) {
      if (x >= inner.left && x < right && y >= inner.top && y < bottom) continue;
      const sx = inner.left + reflect(x - inner.left, inner.width);
      const a = (y * width + x) * 3;
      const b = (sy * width + sx) * 3;
      out[a] = data[b];
      out[a + 1] = data[b + 1];
      out[a + 2] = data[b + 2];
    }
  }
  for (let c = 0; c < 3; c++) {
    const plane = new Float32Array(width * height);
    for (let i = 0; i < plane.length; i++) plane[i] = out[i * 3 + c];
    const blurred = boxMean(boxMean({ data: plane, width, height }, BLUR_RADIUS), BLUR_RADIUS).data;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (x >= inner.left && x < right && y >= inner.top && y < bottom) continue;
        out[(y * width + x) * 3 + c] = Math.round(blurred[y * width + x]);
      }
    }
  }
  return out;
}

/** Index 0..size-1 for any offset, mirrored at both ends (the edge pixel repeated: ... 1 0 | 0 1 ...). */
function reflect(offset: number, size: number): number {
  const period = size * 2;
  const m = ((offset % period) + period) % period;
  return m < size ? m : period - 1 - m;
}
