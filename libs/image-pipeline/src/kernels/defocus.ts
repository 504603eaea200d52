import type { RawPixels } from '../workers/raw-pixels';
import { flood8 } from './flood';
import { boxMean, type Plane } from './guided-filter';
import { dilate, erode, invert } from './morphology';

/**
 * An out-of-focus backdrop the network took for the object. A product shot's backdrop is often a real scene out
 * of focus, and a small salient-object network marks what stands out in it (a plant behind a necklace) with the
 * product. What is in focus is told by its edges: an edge blurred by a Gaussian of sigma, blurred again by one of
 * sigma0, loses gradient in the ratio R = sqrt(sigma^2 + sigma0^2) / sigma (Zhuo and Sim, "Defocus map estimation
 * from a single image", Pattern Recognition 2011), so R >= sqrt(2) says sigma <= sigma0: sharp. Sizes in coarse
 * pixels.
 * Measured on the composite set (its scene: the plant sample blurred by 12 px): fur collar 0.35 -> 0.78, necklace
 * chain 0.05 -> 0.43 (haze 17% -> 1.7%), glass vase 0.07 -> 0.93; no other composite moved.
 * - `sigma`: sigma0, the focus limit: edges blurred by more are out of focus (the set's scene: about 6).
 * - `gradient`: the least colour gradient (levels a pixel, central differences over the three channels) of an
 *   edge in focus; flat areas and JPEG noise are neither sharp nor blurred. At 3 the scene's own faint grain
 *   counted as in focus and the necklace and vase were lost again.
 * - `blurGradient`, `blurRatio`: a blurred edge, the evidence a part is out of focus: a gradient of at least
 *   `blurGradient` that keeps more than 1/sqrt(blurRatio) of itself after the blur, farther than two `near`
 *   from an edge in focus (whose own tails fade like a blurred edge: without that rule a stool's legs on brick
 *   went, 0.82 -> 0.66).
 * - `near`: a pixel within this of an edge in focus is in focus (the object's outline and texture).
 * - `core`: what stays must keep an inside this far from what goes, at least `coreArea` square coarse pixels:
 *   an object smeared sideways by motion (its left and right edges as blurred as the scene, its inside flat) is
 *   all one blur but for rims along its sharp top and bottom, and is kept whole.
 * - `minArea`, `minShare`: what goes must be at least this (square coarse pixels) and this share of what the
 *   network marked; less is left to the colour refinement (a potted plant on a wood photo, itself soft, lost the
 *   gaps between its leaves when the thin margins were dropped: 0.94 -> 0.91).
 * - `perCoarse`: the image is judged reduced to about this many pixels a coarse pixel.
 */
export const DEFOCUS = {
  sigma: 1,
  gradient: 6,
  blurGradient: 1.5,
  blurRatio: 1.25,
  near: 2,
  core: 3,
  coreArea: 16,
  minArea: 16,
  minShare: 0.1,
  perCoarse: 2,
} as const;

/**
 * Zeroes the parts of `prior` (0..255, changed in place) that are out-of-focus backdrop: pixels the network
 * marked (above 0) that are not near an in-focus edge, connected to the outside of what it marked through such
 * pixels, when what stays keeps an in-focus core. Worked out on the image reduced to about `perCoarse` pixels a
 * coarse pixel (blocks' means: the edges judged are a coarse pixel's blur and more, and the answer lies farther
 * than that from any in-focus edge). Returns how many pixels were zeroed.
 */
export function dropDefocused(image: RawPixels, prior: Uint8Array, coarsePixel: number): number {
  const { width, height } = image;
  const block = Math.max(1, Math.round(coarsePixel / DEFOCUS.perCoarse));
  const small = block === 1 ? image : reduced(image, block);
  const marked = new Uint8Array(small.width * small.height);
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / block) * small.width;
    for (let x = 0, i = y * width; x < width; x++, i++) if (prior[i] > 0) marked[row + Math.floor(x / block)] = 1;
  }
  const gone = defocusedParts(small, marked, coarsePixel / block);
  if (!gone) return 0;
  let removed = 0;
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / block) * small.width;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!gone[row + Math.floor(x / block)] || prior[i] === 0) continue;
      prior[i] = 0;
      removed++;
    }
  }
  return removed;
}

/** The marked pixels to drop (1), or undefined when none are (see dropDefocused). */
function defocusedParts(image: RawPixels, marked: Uint8Array, coarsePixel: number): Uint8Array | undefined {
  const { width, height } = image;
  const n = width * height;
  const { sharp, blurred } = edges(image, coarsePixel);
  const reach = Math.max(1, Math.round(DEFOCUS.near * coarsePixel));
  const near = dilate(sharp, width, height, reach);
  // a sharp edge's own tails fade like a blurred one (their gradient is gone before the blur's): not evidence
  const wide = dilate(sharp, width, height, 2 * reach);
  for (let i = 0; i < n; i++) if (wide[i]) blurred[i] = 0;
  const nearBlur = dilate(blurred, width, height, reach);
  // seeds: marked pixels far from any in-focus edge and near a blurred one, beside a pixel not marked
  const outside = dilate(invert(marked), width, height, 1);
  const gone = new Uint8Array(n);
  const stack = new Int32Array(n);
  let top = 0;
  for (let i = 0; i < n; i++) {
    if (marked[i] && !near[i] && outside[i] && nearBlur[i]) {
      gone[i] = 1;
      stack[top++] = i;
    }
  }
  flood8(stack, top, width, height, (next) => {
    if (gone[next] || !marked[next] || near[next]) return false;
    gone[next] = 1;
    return true;
  });
  let removed = 0;
  let all = 0;
  for (let i = 0; i < n; i++) {
    removed += gone[i];
    all += marked[i];
  }
  const area = coarsePixel * coarsePixel;
  if (removed < DEFOCUS.minArea * area || removed < DEFOCUS.minShare * all) return undefined;
  const stays = new Uint8Array(n);
  for (let i = 0; i < n; i++) stays[i] = marked[i] && !gone[i] ? 1 : 0;
  const core = erode(stays, width, height, Math.max(1, Math.round(DEFOCUS.core * coarsePixel)));
  let coreArea = 0;
  for (let i = 0; i < n; i++) coreArea += core[i];
  return coreArea < DEFOCUS.coreArea * area ? undefined : gone;
}

/** `image` (3 or 4 channels) reduced by `block`: each block's mean colour, 3 channels (edge blocks partial). */
function reduced(image: RawPixels, block: number): RawPixels {
  const { width, height, data, channels } = image;
  const w = Math.ceil(width / block);
  const h = Math.ceil(height / block);
  const sums = new Float32Array(w * h * 4);
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / block) * w;
    for (let x = 0; x < width; x++) {
      const o = (row + Math.floor(x / block)) * 4;
      const p = (y * width + x) * channels;
      sums[o] += data[p];
      sums[o + 1] += data[p + 1];
      sums[o + 2] += data[p + 2];
      sums[o + 3]++;
    }
  }
  const out = new Uint8Array(w * h * 3);
  for (let i = 0; i < w * h; i++)
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(sums[i * 4 + c] / sums[i * 4 + 3]);
  return { data: out, width: w, height: h, channels: 3 };
}

/**
 * 1 where the image has an in-focus edge: a colour gradient (over the three channels: a red mug on a teal wall
 * has almost no edge of luma) of at least DEFOCUS.gradient that keeps more than 1/sqrt(2) of itself after a blur
 * of DEFOCUS.sigma (three box passes of about that sigma).
 */
function edges(image: RawPixels, coarsePixel: number): { sharp: Uint8Array; blurred: Uint8Array } {
  const { width, height, data, channels } = image;
  // three box passes of radius r have variance 3 ((2r + 1)^2 - 1) / 12 = r (r + 1): sigma0 about r
  const r = Math.max(1, Math.round(DEFOCUS.sigma * coarsePixel));
  const sharp = new Float32Array(width * height);
  const soft = new Float32Array(width * height);
  for (let c = 0; c < 3; c++) {
    const plane: Plane = { data: new Float32Array(width * height), width, height };
    for (let i = 0; i < plane.data.length; i++) plane.data[i] = data[i * channels + c];
    const blurred = boxMean(boxMean(boxMean(plane, r), r), r).data;
    for (let y = 1; y < height - 1; y++) {
      for (let x = 1, i = y * width + 1; x < width - 1; x++, i++) {
        sharp[i] += gradient2(plane.data, i, width);
        soft[i] += gradient2(blurred, i, width);
      }
    }
  }
  const out = new Uint8Array(width * height);
  const blur = new Uint8Array(width * height);
  const least = DEFOCUS.gradient * DEFOCUS.gradient;
  const faint = DEFOCUS.blurGradient * DEFOCUS.blurGradient;
  for (let i = 0; i < out.length; i++) {
    // R^2 >= 2: in focus; R^2 < blurRatio: well out of it
    if (sharp[i] >= least && sharp[i] >= 2 * soft[i]) out[i] = 1;
    else if (sharp[i] >= faint && sharp[i] < DEFOCUS.blurRatio * soft[i]) blur[i] = 1;
  }
  return { sharp: out, blurred: blur };
}

/** The squared central-difference gradient of `plane` at pixel `i` (not on the border), halved differences. */
function gradient2(plane: Float32Array, i: number, width: number): number {
  const gx = (plane[i + 1] - plane[i - 1]) / 2;
  const gy = (plane[i + width] - plane[i - width]) / 2;
  return gx * gx + gy * gy;
}
