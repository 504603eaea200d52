import type { RawPixels } from '../workers/raw-pixels';
import { guidedFilter, type Plane } from './guided-filter';

/**
 * The last refinement of a matte made at a working size below the image's (matte.kernel.ts works at most at
 * 2048 px a side): upsampled to full size, its edge is a ramp as wide as the scale factor, and a faint haze of
 * the old background fills concave corners. In the edge band (0 < alpha < 255), a guided filter at full
 * resolution (radius about the scale factor, the image as guide) moves the edge to where the image has it, and
 * the contrast band [low, high] makes it as crisp as the working matte was.
 * - `tile`: the side of the square tiles the filter runs on (with `2 * radius` pixels of context around), so memory
 *   holds about ten float planes of a tile, not of the image, and tiles without an edge are skipped: the work
 *   follows the object's outline, not the image's area.
 */
export const EDGE_REFINE = { tile: 256, eps: 1e-4, low: 0.3, high: 0.7 } as const;

/** Refines `alpha` (full size, 1 channel, changed in place) in its edge band, guided by `image` (3 or 4 ch). */
export function refineEdges(image: RawPixels, alpha: Uint8Array, radius: number): void {
  const { width, height } = image;
  const { tile } = EDGE_REFINE;
  const span = EDGE_REFINE.high - EDGE_REFINE.low;
  for (let y0 = 0; y0 < height; y0 += tile) {
    for (let x0 = 0; x0 < width; x0 += tile) {
      const inner = { left: x0, top: y0, right: Math.min(width, x0 + tile), bottom: Math.min(height, y0 + tile) };
      if (!hasEdge(alpha, width, inner)) continue;
      const outer = {
        left: Math.max(0, x0 - 2 * radius),
        top: Math.max(0, y0 - 2 * radius),
        right: Math.min(width, inner.right + 2 * radius),
        bottom: Math.min(height, inner.bottom + 2 * radius),
      };
      const q = guidedFilter(guideRegion(image, outer), alphaRegion(alpha, width, outer), radius, EDGE_REFINE.eps);
      for (let y = inner.top; y < inner.bottom; y++) {
        for (let x = inner.left; x < inner.right; x++) {
          const i = y * width + x;
          if (alpha[i] === 0 || alpha[i] === 255) continue;
          const value = (q.data[(y - outer.top) * q.width + (x - outer.left)] - EDGE_REFINE.low) / span;
          alpha[i] = value <= 0 ? 0 : value >= 1 ? 255 : Math.round(255 * value);
        }
      }
    }
  }
}

export interface Region {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export function hasEdge(alpha: Uint8Array, width: number, { left, top, right, bottom }: Region): boolean {
  for (let y = top; y < bottom; y++) {
    for (let i = y * width + left, end = y * width + right; i < end; i++) {
      if (alpha[i] !== 0 && alpha[i] !== 255) return true;
    }
  }
  return false;
}

export function guideRegion(image: RawPixels, { left, top, right, bottom }: Region): [Plane, Plane, Plane] {
  const { width, channels, data } = image;
  const w = right - left;
  const h = bottom - top;
  const planes = [0, 1, 2].map(() => ({ data: new Float32Array(w * h), width: w, height: h }));
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0, p = ((top + y) * width + left) * channels; x < w; x++, i++, p += channels) {
      planes[0].data[i] = data[p] / 255;
      planes[1].data[i] = data[p + 1] / 255;
      planes[2].data[i] = data[p + 2] / 255;
    }
  }
  return planes as [Plane, Plane, Plane];
}

export function alphaRegion(alpha: Uint8Array, width: number, { left, top, right, bottom }: Region): Plane {
  const w = right - left;
  const h = bottom - top;
  const data = new Float32Array(w * h);
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0, at = (top + y) * width + left; x < w; x++, i++, at++) data[i] = alpha[at] / 255;
  }
  return { data, width: w, height: h };
}
