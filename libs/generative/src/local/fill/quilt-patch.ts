import type { PortBox } from '@app/image-pipeline';

/**
 * One step of image quilting (Efros and Freeman, "Image Quilting for Texture Synthesis and Transfer", 2001) on a
 * 3-channel canvas that is being filled: pick, among candidate source patches, one whose pixels agree with what is
 * already known under the patch, then paste it with a minimum-error boundary cut through its overlaps, so that
 * neighbouring patches meet along the path where they differ least instead of along a straight line.
 */

/** The canvas being filled, the original it was made from, and which pixels hold final content. */
export interface QuiltCanvas {
  /** 3 channels, width * height * 3; written in place. */
  data: Uint8Array;
  /** The untouched input (the original at `inner`): the feather band blends from it. */
  original: Uint8Array;
  width: number;
  height: number;
  /** 1 where `data` holds the original or an already pasted patch. */
  known: Uint8Array;
  inner: PortBox;
  /** Blend width inside the original across left/right (x) and top/bottom (y) edges, px. */
  feather: { x: number; y: number };
}

/** Which side of the original a strip of patches grows from. */
export type Side = 'left' | 'right' | 'top' | 'bottom';

/** A patch on the canvas, the side it grows from, and the overlap depths of its two cut bands. */
export interface PatchPlace {
  x: number;
  y: number;
  w: number;
  h: number;
  side: Side;
  /** Depth of the band facing the already filled region (toward the original), px; 0 = none. */
  innerBand: number;
  /** Depth of the band facing the previous patch of the strip (its left or top), px; 0 = none. */
  previousBand: number;
}

/**
 * How badly the source patch at (sx, sy) fits the known pixels under `place`, on a grid of step `step`: the sum of
 * squared differences once each channel's mean difference is taken out (pastePatch shifts the patch by it), plus a
 * quarter of that mean difference's own square per sample, so that of two patches of the same texture the one
 * nearer in colour wins. Also answers the number of samples.
 */
export function overlapError(
  canvas: QuiltCanvas,
  place: PatchPlace,
  sx: number,
  sy: number,
  step: number,
): { error: number; samples: number } {
  const { data, known, width, original } = canvas;
  let squares = 0;
  let sumR = 0;
  let sumG = 0;
  let sumB = 0;
  let samples = 0;
  for (let v = 0; v < place.h; v += step) {
    const row = (place.y + v) * width + place.x;
    const sourceRow = (sy + v) * width + sx;
    for (let u = 0; u < place.w; u += step) {
      if (known[row + u] === 0) continue;
      const a = (row + u) * 3;
      const b = (sourceRow + u) * 3;
      const dr = data[a] - original[b];
      const dg = data[a + 1] - original[b + 1];
      const db = data[a + 2] - original[b + 2];
      squares += dr * dr + dg * dg + db * db;
      sumR += dr;
      sumG += dg;
      sumB += db;
      samples++;
    }
  }
  if (samples === 0) return { error: 0, samples };
  const offset = (sumR * sumR + sumG * sumG + sumB * sumB) / samples;
  return { error: squares - offset * (1 - OFFSET_COST), samples };
}

/** The share of a uniform colour difference that still counts as error (the rest pastePatch corrects). */
const OFFSET_COST = 0.25;
/** The largest colour shift pastePatch applies to a patch, per channel (0..255). */
const MAX_SHIFT = 32;

/** The mean difference, per channel, between the known pixels under `place` and the source patch (clamped). */
function patchShift(canvas: QuiltCanvas, place: PatchPlace, sx: number, sy: number): [number, number, number] {
  const { data, known, width, original } = canvas;
  const sums = [0, 0, 0];
  let samples = 0;
  for (let v = 0; v < place.h; v++) {
    for (let u = 0; u < place.w; u++) {
      const at = (place.y + v) * width + place.x + u;
      if (known[at] === 0) continue;
      const b = ((sy + v) * width + sx + u) * 3;
      for (let c = 0; c < 3; c++) sums[c] += data[at * 3 + c] - original[b + c];
      samples++;
    }
  }
  const shift = (sum: number) => (samples === 0 ? 0 : Math.max(-MAX_SHIFT, Math.min(MAX_SHIFT, sum / samples)));
  return [shift(sums[0]), shift(sums[1]), shift(sums[2])];
}

/**
 * The minimum-error path through a band of `length` positions and `depth` layers (layer 0 on the new patch's
 * side): `cut[i]` is the last layer taken from the new patch at position i. Dynamic programming over
 * `error[i * depth + layer]`, the path moving at most one layer per position.
 */
export function minErrorCut(error: Float32Array, length: number, depth: number): Int32Array {
  const cost = new Float32Array(error.length);
  const from = new Int8Array(error.length);
  for (let layer = 0; layer < depth; layer++) cost[layer] = error[layer];
  for (let i = 1; i < length; i++) {
    for (let layer = 0; layer < depth; layer++) {
      let best = cost[(i - 1) * depth + layer];
      let move = 0;
      if (layer > 0 && cost[(i - 1) * depth + layer - 1] < best) {
        best = cost[(i - 1) * depth + layer - 1];
        move = -1;
      }
      if (layer + 1 < depth && cost[(i - 1) * depth + layer + 1] < best) {
        best = cost[(i - 1) * depth + layer + 1];
        move = 1;
      }
      cost[i * depth + layer] = best + error[i * depth + layer];
      from[i * depth + layer] = move;
    }
  }
  const cut = new Int32Array(length);
  let layer = 0;
  for (let candidate = 1; candidate < depth; candidate++) {
    if (cost[(length - 1) * depth + candidate] < cost[(length - 1) * depth + layer]) layer = candidate;
  }
  for (let i = length - 1; i >= 0; i--) {
    cut[i] = layer;
    layer += from[i * depth + layer];
  }
  return cut;
}

/** Patch-local (u, v) of a band position: `along` runs the band's length, `layer` from the new side inward. */
type BandMap = (along: number, layer: number) => [number, number];

function bandMaps(place: PatchPlace): {
  inner?: { map: BandMap; length: number; depth: number };
  previous?: { map: BandMap; length: number; depth: number };
} {
  const { w, h, innerBand, previousBand, side } = place;
  const vertical = side === 'left' || side === 'right';
  const result: ReturnType<typeof bandMaps> = {};
  if (innerBand > 0) {
    const depth = innerBand;
    const map: BandMap =
      side === 'top'
        ? (i, l) => [i, h - depth + l]
        : side === 'bottom'
          ? (i, l) => [i, depth - 1 - l]
          : side === 'left'
            ? (i, l) => [w - depth + l, i]
            : (i, l) => [depth - 1 - l, i];
    result.inner = { map, length: vertical ? h : w, depth };
  }
  if (previousBand > 0) {
    const depth = previousBand;
    // The previous patch lies before this one along the strip: to the left (top/bottom strips) or above.
    const map: BandMap = vertical ? (i, l) => [i, depth - 1 - l] : (i, l) => [depth - 1 - l, i];
    result.previous = { map, length: vertical ? w : h, depth };
  }
  return result;
}

/**
 * Pastes the source patch at (sx, sy) onto `place`. Unknown pixels take the patch; known pixels outside the
 * original keep their value on the far side of either minimum-error cut; pixels of the original within its
 * feather band blend towards the patch (weight 1 - (depth + 0.5) / feather), the rest of the original is kept.
 */
export function pastePatch(canvas: QuiltCanvas, place: PatchPlace, sx: number, sy: number): void {
  const { data, original, known, width, inner, feather } = canvas;
  const { w, h } = place;
  const shift = patchShift(canvas, place, sx, sy);
  const source = (b: number, c: number) => {
    const value = original[b + c] + shift[c];
    return value < 0 ? 0 : value > 255 ? 255 : value;
  };
  const bands = bandMaps(place);
  // 1 = keep the existing pixel (beyond that band's cut). The original's pixels follow only the cut from the
  // previous patch; towards the original the feather decides.
  const keepInner = cutMask(canvas, place, bands.inner, sx, sy, source);
  const keepPrevious = cutMask(canvas, place, bands.previous, sx, sy, source);
  const innerRight = inner.left + inner.width;
  const innerBottom = inner.top + inner.height;
  for (let v = 0; v < h; v++) {
    const y = place.y + v;
    const insideY = y >= inner.top && y < innerBottom;
    const depthY = Math.min(y - inner.top, innerBottom - 1 - y);
    for (let u = 0; u < w; u++) {
      const x = place.x + u;
      const at = y * width + x;
      const a = at * 3;
      const b = ((sy + v) * width + sx + u) * 3;
      if (keepPrevious[v * w + u] === 1) continue;
      if (insideY && x >= inner.left && x < innerRight) {
        const weight = featherWeight(Math.min(x - inner.left, innerRight - 1 - x), feather.x, depthY, feather.y);
        if (weight >= 1) continue;
        for (let c = 0; c < 3; c++) data[a + c] = Math.round(original[a + c] * weight + source(b, c) * (1 - weight));
        continue;
      }
      if (known[at] === 1 && keepInner[v * w + u] === 1) continue;
      for (let c = 0; c < 3; c++) data[a + c] = Math.round(source(b, c));
      known[at] = 1;
    }
  }
}

/** Patch-sized mask, 1 beyond the minimum-error cut through `band` (where the existing pixels stay). */
function cutMask(
  canvas: QuiltCanvas,
  place: PatchPlace,
  band: { map: BandMap; length: number; depth: number } | undefined,
  sx: number,
  sy: number,
  source: (b: number, c: number) => number,
): Uint8Array {
  const keep = new Uint8Array(place.w * place.h);
  if (!band) return keep;
  const { data, width } = canvas;
  const error = new Float32Array(band.length * band.depth);
  for (let i = 0; i < band.length; i++) {
    for (let l = 0; l < band.depth; l++) {
      const [u, v] = band.map(i, l);
      const a = ((place.y + v) * width + place.x + u) * 3;
      const b = ((sy + v) * width + sx + u) * 3;
      const dr = data[a] - source(b, 0);
      const dg = data[a + 1] - source(b, 1);
      const db = data[a + 2] - source(b, 2);
      error[i * band.depth + l] = dr * dr + dg * dg + db * db;
    }
  }
  const cut = minErrorCut(error, band.length, band.depth);
  for (let i = 0; i < band.length; i++) {
    for (let l = cut[i] + 1; l < band.depth; l++) {
      const [u, v] = band.map(i, l);
      keep[v * place.w + u] = 1;
    }
  }
  return keep;
}

/** How much of the original a pixel of it keeps, 0..1, from its distances to the vertical and horizontal edges. */
function featherWeight(depthX: number, featherX: number, depthY: number, featherY: number): number {
  const wx = featherX > 0 ? Math.min(1, (depthX + 0.5) / featherX) : 1;
  const wy = featherY > 0 ? Math.min(1, (depthY + 0.5) / featherY) : 1;
  return Math.min(wx, wy);
}
