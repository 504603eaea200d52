import { depthOf } from './completion-pyramid';
import { CHANNELS, PatchField, type CompletionLevel } from './patch-match';
import { clamp } from '../numbers';

/**
 * The first guess at the coarsest level of the completion (image-completion.ts), before any patch is matched: the
 * unknown pixels interpolated from the known pixels that are neither the object nor next to it (the level's
 * nearObject map), by push-pull (Gortler, Grzeszczuk, Szeliski and Cohen, "The Lumigraph", 1996): the known values
 * are summed into ever coarser cells until every cell holds some, then each finer cell without a value takes its
 * coarser cell's, interpolated bilinearly. Next to the border the guess is the border's colour; further out it is
 * the mean of ever more of the border, so that a sliver of the object's shadow between it and the edge is not
 * stretched across the whole new area (a dark bar under a saucer, which the search then matched to a dark wall),
 * and an object cut by the edge is not stretched out of the image either (it is never a value).
 */
export function pushPullInto(level: CompletionLevel): void {
  const { width, height, data, known } = level;
  const ignored = level.nearObject ?? level.excluded;
  let usable = (p: number) => known[p] === 1 && ignored[p] === 0;
  if (!anyOf(known.length, usable)) usable = (p: number) => known[p] === 1;
  if (!anyOf(known.length, usable)) return;

  const finest = new Cells(width, height);
  for (let p = 0; p < known.length; p++) {
    if (!usable(p)) continue;
    finest.weight[p] = 1;
    for (let c = 0; c < CHANNELS; c++) finest.sums[p * CHANNELS + c] = data[p * CHANNELS + c];
  }
  const pyramid = [finest];
  for (let top = finest; top.width > 1 || top.height > 1;) pyramid.push((top = top.pulled()));

  let values = pyramid[pyramid.length - 1].means();
  for (let l = pyramid.length - 2; l >= 0; l--) values = pyramid[l].pushed(pyramid[l + 1], values);
  for (let p = 0; p < known.length; p++) {
    if (known[p] === 1) continue;
    for (let c = 0; c < CHANNELS; c++) data[p * CHANNELS + c] = values[p * CHANNELS + c];
  }
}

function anyOf(count: number, test: (p: number) => boolean): boolean {
  for (let p = 0; p < count; p++) if (test(p)) return true;
  return false;
}

/** One level of the push-pull pyramid: per cell, the number of known values summed into it and their sums. */
class Cells {
  readonly weight: Float32Array;
  readonly sums: Float32Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.weight = new Float32Array(width * height);
    this.sums = new Float32Array(width * height * CHANNELS);
  }

  /** Half the size: each cell sums its (up to four) finer cells. */
  pulled(): Cells {
    const coarse = new Cells(Math.ceil(this.width / 2), Math.ceil(this.height / 2));
    for (let y = 0; y < this.height; y++) {
      for (let x = 0; x < this.width; x++) {
        const at = y * this.width + x;
        if (this.weight[at] === 0) continue;
        const to = (y >> 1) * coarse.width + (x >> 1);
        coarse.weight[to] += this.weight[at];
        for (let c = 0; c < CHANNELS; c++) coarse.sums[to * CHANNELS + c] += this.sums[at * CHANNELS + c];
      }
    }
    return coarse;
  }

  /** The mean of each cell (0 where it holds nothing: only the 1 x 1 top of an empty image). */
  means(): Float32Array {
    const values = new Float32Array(this.sums.length);
    for (let p = 0; p < this.weight.length; p++) {
      const w = this.weight[p];
      if (w > 0) for (let c = 0; c < CHANNELS; c++) values[p * CHANNELS + c] = this.sums[p * CHANNELS + c] / w;
    }
    return values;
  }

  /**
   * This level's values from the coarser one's (`coarse`, `above`): a cell's own mean where it holds a full
   * known value, the coarser values interpolated bilinearly where it holds none, and a blend between.
   */
  pushed(coarse: Cells, above: Float32Array): Float32Array {
    const values = new Float32Array(this.sums.length);
    const parent = new Float32Array(CHANNELS);
    for (let y = 0; y < this.height; y++) {
      const fy = clamp((y + 0.5) / 2 - 0.5, 0, coarse.height - 1);
      const y0 = Math.floor(fy);
      const y1 = Math.min(y0 + 1, coarse.height - 1);
      const ay = fy - y0;
      for (let x = 0; x < this.width; x++) {
        const p = y * this.width + x;
        const w = this.weight[p];
        const share = Math.min(1, w);
        if (share < 1) {
          const fx = clamp((x + 0.5) / 2 - 0.5, 0, coarse.width - 1);
          const x0 = Math.floor(fx);
          const x1 = Math.min(x0 + 1, coarse.width - 1);
          const ax = fx - x0;
          const a = (y0 * coarse.width + x0) * CHANNELS;
          const b = (y0 * coarse.width + x1) * CHANNELS;
          const d = (y1 * coarse.width + x0) * CHANNELS;
          const e = (y1 * coarse.width + x1) * CHANNELS;
          for (let c = 0; c < CHANNELS; c++) {
            const top = above[a + c] + (above[b + c] - above[a + c]) * ax;
            const bottom = above[d + c] + (above[e + c] - above[d + c]) * ax;
            parent[c] = top + (bottom - top) * ay;
          }
        }
        for (let c = 0; c < CHANNELS; c++) {
          const own = w > 0 ? this.sums[p * CHANNELS + c] / w : 0;
          values[p * CHANNELS + c] = share >= 1 ? own : own * share + parent[c] * (1 - share);
        }
      }
    }
    return values;
  }
}

/**
 * The coarsest level's unknown pixels synthesised ring by ring from the border inward (onion peeling, as in
 * Efros and Leung's texture synthesis and Criminisi et al.'s exemplar-based inpainting): each pixel of a ring takes
 * the centre of the source patch that best matches what is around it, where the known pixels and the rings
 * already filled weigh fully and the rest (the smooth guess, pushPullInto) weighs little (patch-match.ts); the
 * matches are found by PatchMatch over the ring, its neighbours' matches shifted carrying on a line or a row of
 * bricks. A smooth guess alone is matched best by the image's plainest patches, so that a brick wall would be
 * continued as grey plaster; rings continue the texture and the lines that reach the border.
 */
export function onionPeelInto(level: CompletionLevel, valid: Uint8Array, passes: number, random: () => number): void {
  const { width, height, data, known } = level;
  const depth = depthOf(level);
  let deepest = 0;
  for (let p = 0; p < depth.length; p++) if (known[p] === 0 && depth[p] > deepest) deepest = depth[p];
  if (deepest === 0) return;
  // the pixels of each ring, in scan order
  const counts = new Int32Array(deepest + 1);
  for (let p = 0; p < depth.length; p++) if (known[p] === 0) counts[depth[p]]++;
  const rings = Array.from({ length: deepest + 1 }, (_, d) => new Int32Array(counts[d]));
  counts.fill(0);
  for (let p = 0; p < depth.length; p++) if (known[p] === 0) rings[depth[p]][counts[depth[p]]++] = p;
  const targets = new Int32Array(depth.length - known.reduce((sum, k) => sum + k, 0));
  for (let d = 1, k = 0; d <= deepest; d++) for (const p of rings[d]) targets[k++] = p;

  // the distance reads `filled` as its known map: the known pixels, then each ring once it is synthesised
  const filled = known.slice();
  const field = new PatchField({ ...level, known: filled }, targets, valid, random);
  field.randomise();
  const reach = Math.max(width, height);
  for (let d = 1, first = 0; d <= deepest; first += rings[d].length, d++) {
    const ring = Int32Array.from({ length: rings[d].length }, (_, i) => first + i);
    field.refresh(ring);
    field.search(passes, reach, ring);
    for (const t of ring) {
      const p = targets[t];
      const s = field.source[t];
      for (let c = 0; c < CHANNELS; c++) data[p * CHANNELS + c] = data[s * CHANNELS + c];
      filled[p] = 1;
    }
  }
}
