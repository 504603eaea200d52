import type { RawPixels } from '../workers/raw-pixels';
import { alphaRegion, guideRegion, hasEdge, type Region } from './edge-refine';
import { guidedFilterOf } from './guided-filter';

/**
 * How the unknown band of a trimap is matted (cutout-refine.ts). Closed-form matting (Levin, Lischinski and Weiss,
 * "A closed-form solution to natural image matting", PAMI 2008) finds the alpha that is, in every small window,
 * a linear function of the colour: it minimises a^T L a with the known pixels held. With box-filtered window
 * statistics the matting Laplacian is L = |w| (I - Q), Q the guided filter of the image with ridge eps / |w|
 * (He, Sun and Tang, "Fast matting using large kernel matting Laplacian matrices", CVPR 2010, and "Guided image
 * filtering", 2013, section 3.4), so L a = 0 on the unknown pixels is the fixed point a = Q a. It is reached here
 * by `iterations` fixed-point (Jacobi-type) steps from the trimap's own guess, the known pixels reset after each:
 * the band is a few pixels wide, so a few steps of a window about as wide carry the known pixels' values across it.
 * - `radius`: the window (pixels); `eps`: the ridge, in (colour 0..1)^2: small, so alpha follows the colour lines
 *   of hair and glass; `tile`: the side of the square tiles worked on (with `iterations * radius * 2` of context),
 *   so memory holds a few dozen planes of a tile and tiles without unknown pixels cost nothing. 64, not 128: an
 *   outline a few pixels wide touches less of the image in smaller tiles (the bench's 1 MP scene: the matting
 *   84 ms against 111, the answer the same to the level on the composite set).
 */
export const MATTING = { eps: 1e-5, iterations: 1, tile: 64 } as const;

/**
 * Alpha for the unknown pixels of `trimap` (1 channel, width x height: 0 = sure background, 255 = sure foreground,
 * anything else unknown, its value the guess). `image`: 3 or 4 channels (its alpha not read). `radius`: the
 * window, about the width of the unknown band. A new alpha, equal to the trimap where it is sure.
 */
export function solveAlpha(image: RawPixels, trimap: Uint8Array, radius: number): Uint8Array {
  const { width, height } = image;
  const { tile, iterations, eps } = MATTING;
  const out = new Uint8Array(trimap);
  const context = 2 * radius * iterations;
  for (let y0 = 0; y0 < height; y0 += tile) {
    for (let x0 = 0; x0 < width; x0 += tile) {
      const inner = { left: x0, top: y0, right: Math.min(width, x0 + tile), bottom: Math.min(height, y0 + tile) };
      if (!hasEdge(trimap, width, inner)) continue;
      const outer: Region = {
        left: Math.max(0, x0 - context),
        top: Math.max(0, y0 - context),
        right: Math.min(width, inner.right + context),
        bottom: Math.min(height, inner.bottom + context),
      };
      const filter = guidedFilterOf(guideRegion(image, outer), radius, eps);
      const known = alphaRegion(trimap, width, outer);
      let alpha = known;
      for (let step = 0; step < iterations; step++) {
        const q = filter(alpha).data;
        for (let i = 0; i < q.length; i++) {
          const k = known.data[i];
          q[i] = k === 0 || k === 1 ? k : q[i] < 0 ? 0 : q[i] > 1 ? 1 : q[i];
        }
        alpha = { data: q, width: known.width, height: known.height };
      }
      const w = outer.right - outer.left;
      for (let y = inner.top; y < inner.bottom; y++) {
        for (let x = inner.left; x < inner.right; x++) {
          const i = y * width + x;
          if (trimap[i] === 0 || trimap[i] === 255) continue;
          out[i] = Math.round(255 * alpha.data[(y - outer.top) * w + (x - outer.left)]);
        }
      }
    }
  }
  return out;
}
