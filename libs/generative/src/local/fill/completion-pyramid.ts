import { CHANNELS, type CompletionLevel } from './patch-match';

/**
 * The levels of the completion pyramid (image-completion.ts): the full-size level with its detail value, each
 * coarser level half the size of the one below, the first guess at the coarsest, a coarser level's pixels carried
 * to the finer one, and how far each pixel lies from the known part.
 */

/** Weight of the detail value against a colour channel (a step of 10 in mean gradient counts as 15 in red). */
const DETAIL_GAIN = 1.5;

/**
 * The image with its detail value as the fourth channel: DETAIL_GAIN x (|dx| + |dy|) of the luma at full size, 0
 * where a neighbour is unknown (the fill's is voted like its colours). The pyramid's halving averages it, so a
 * coarse pixel holds how detailed the full-size image is there.
 */
export function withDetail(rgb: Uint8Array, width: number, height: number, known: Uint8Array): Float32Array {
  const data = new Float32Array(width * height * CHANNELS);
  // the luma of this row and of the next, each computed once
  let here = new Float64Array(width);
  let below = new Float64Array(width);
  lumaRow(rgb, 0, width, here);
  for (let y = 0; y < height; y++) {
    const last = y === height - 1;
    if (!last) lumaRow(rgb, y + 1, width, below);
    for (let x = 0, p = y * width; x < width; x++, p++) {
      const at = p * CHANNELS;
      data[at] = rgb[p * 3];
      data[at + 1] = rgb[p * 3 + 1];
      data[at + 2] = rgb[p * 3 + 2];
      if (last || x === width - 1 || known[p] === 0 || known[p + 1] === 0 || known[p + width] === 0) continue;
      data[at + 3] = DETAIL_GAIN * (Math.abs(here[x + 1] - here[x]) + Math.abs(below[x] - here[x]));
    }
    [here, below] = [below, here];
  }
  return data;
}

function lumaRow(rgb: Uint8Array, y: number, width: number, out: Float64Array): void {
  for (let x = 0, at = y * width * 3; x < width; x++, at += 3)
    out[x] = 0.299 * rgb[at] + 0.587 * rgb[at + 1] + 0.114 * rgb[at + 2];
}

/** Half the size: a pixel is known where all its (up to four) finer pixels are, excluded where any is. */
export function downsample(level: CompletionLevel): CompletionLevel {
  const width = Math.ceil(level.width / 2);
  const height = Math.ceil(level.height / 2);
  const data = new Float32Array(width * height * CHANNELS);
  const known = new Uint8Array(width * height);
  const excluded = new Uint8Array(width * height);
  const fine = level.data;
  for (let y = 0; y < height; y++) {
    const rows = Math.min(2, level.height - 2 * y);
    for (let x = 0; x < width; x++) {
      const columns = Math.min(2, level.width - 2 * x);
      let all = 1;
      let any = 0;
      let count = 0;
      let r = 0;
      let g = 0;
      let b = 0;
      let d = 0;
      for (let v = 0; v < rows; v++) {
        for (let u = 0, at = (2 * y + v) * level.width + 2 * x; u < columns; u++, at++) {
          all &= level.known[at];
          any |= level.excluded[at];
          if (level.known[at] === 0) continue;
          const from = at * CHANNELS;
          r += fine[from];
          g += fine[from + 1];
          b += fine[from + 2];
          d += fine[from + 3];
          count++;
        }
      }
      const at = y * width + x;
      known[at] = all;
      excluded[at] = any;
      if (count === 0) continue;
      const to = at * CHANNELS;
      data[to] = r / count;
      data[to + 1] = g / count;
      data[to + 2] = b / count;
      data[to + 3] = d / count;
    }
  }
  return { width, height, data, known, excluded };
}

/**
 * Each pixel's nearest known pixel (its index; -1 when none is known), by two passes that carry each pixel's
 * nearest known pixel to its neighbours, kept by Euclidean distance (the chessboard metric's ties would stretch a
 * wall diagonally over a table).
 */
export function nearestKnown(level: CompletionLevel): Int32Array {
  const { width, height, known } = level;
  const nearest = new Int32Array(width * height).fill(-1);
  const distance = new Float32Array(width * height).fill(Infinity);
  for (let p = 0; p < known.length; p++) {
    if (known[p] === 1) {
      nearest[p] = p;
      distance[p] = 0;
    }
  }
  const relax = (p: number, q: number) => {
    const n = nearest[q];
    if (n < 0) return;
    const dx = (p % width) - (n % width);
    const dy = Math.floor(p / width) - Math.floor(n / width);
    const d = dx * dx + dy * dy;
    if (d < distance[p]) {
      distance[p] = d;
      nearest[p] = n;
    }
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      if (x > 0) relax(p, p - 1);
      if (y > 0) {
        relax(p, p - width);
        if (x > 0) relax(p, p - width - 1);
        if (x < width - 1) relax(p, p - width + 1);
      }
    }
  }
  for (let y = height - 1; y >= 0; y--) {
    for (let x = width - 1; x >= 0; x--) {
      const p = y * width + x;
      if (x < width - 1) relax(p, p + 1);
      if (y < height - 1) {
        relax(p, p + width);
        if (x < width - 1) relax(p, p + width + 1);
        if (x > 0) relax(p, p + width - 1);
      }
    }
  }
  return nearest;
}

/** The unknown pixels of `fine` take their parent's value at the coarser level. */
export function upsampleInto(coarse: CompletionLevel, fine: CompletionLevel): void {
  for (let y = 0; y < fine.height; y++) {
    const cy = Math.min(y >> 1, coarse.height - 1);
    for (let x = 0; x < fine.width; x++) {
      const at = y * fine.width + x;
      if (fine.known[at] === 1) continue;
      const from = (cy * coarse.width + Math.min(x >> 1, coarse.width - 1)) * CHANNELS;
      for (let c = 0; c < CHANNELS; c++) fine.data[at * CHANNELS + c] = coarse.data[from + c];
    }
  }
}

/** Each pixel's distance, in the chessboard metric, to its nearest known pixel (nearestKnown); 0 on known ones. */
export function depthOf(level: CompletionLevel): Float32Array {
  const { width } = level;
  const nearest = nearestKnown(level);
  const depth = new Float32Array(nearest.length);
  for (let p = 0; p < depth.length; p++) {
    const n = nearest[p];
    if (n < 0) continue;
    depth[p] = Math.max(Math.abs((p % width) - (n % width)), Math.abs(Math.floor(p / width) - Math.floor(n / width)));
  }
  return depth;
}

/** The excluded pixels and those within `reach` px of one (chessboard metric): a running count per row, then per column. */
export function nearObject(level: CompletionLevel, reach: number): Uint8Array {
  const { width, height, excluded } = level;
  const rows = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let count = 0;
    for (let x = 0; x < Math.min(reach, width); x++) count += excluded[row + x];
    for (let x = 0; x < width; x++) {
      if (x + reach < width) count += excluded[row + x + reach];
      if (x - reach - 1 >= 0) count -= excluded[row + x - reach - 1];
      rows[row + x] = count > 0 ? 1 : 0;
    }
  }
  const near = new Uint8Array(width * height);
  for (let x = 0; x < width; x++) {
    let count = 0;
    for (let y = 0; y < Math.min(reach, height); y++) count += rows[y * width + x];
    for (let y = 0; y < height; y++) {
      if (y + reach < height) count += rows[(y + reach) * width + x];
      if (y - reach - 1 >= 0) count -= rows[(y - reach - 1) * width + x];
      near[y * width + x] = count > 0 ? 1 : 0;
    }
  }
  return near;
}
