import type { RawPixels } from '../workers/raw-pixels';
import { chromaGrid, lumaGrid, type BlockingMeasure, type PlaneGrid } from './block-grid';

export type { BlockingMeasure } from './block-grid';

/**
 * JPEG artefact removal on decoded pixels: deblocking, then deringing, on the YCbCr planes JPEG coded.
 *
 * 1. Grid. Per axis, the phase 0..7 with the most steps between flat surroundings (a cropped or flipped
 *    JPEG's grid no longer starts at 0; see {@link measureBlocking}). Chroma, usually subsampled 2x, has
 *    its own period per axis, 8 or 16 pixels. Per plane, S is the typical artefact step in levels (about
 *    a DC quantum: 10 at quality 10, 2.5 at 50; see artefactStep). Without a grid S is 0 and the pixels
 *    are returned as they were.
 * 2. Deblocking, per plane, across vertical then horizontal boundaries. At each boundary, d is the step
 *    between the two sides less what their gradients predict. If |d| <= alpha = a * S (a larger step is a
 *    real edge) and both blocks are smooth (mean |second difference| <= beta = b * S), a box filter of half
 *    a block each way turns the staircase into a ramp (a linear gradient passes unchanged).
 * 3. Deringing (mosquito noise beside edges), on luma: in blocks whose range exceeds max(24, 2 S) levels,
 *    each pixel whose 3x3 neighbourhood lies wholly on its side of the block's mid-level is replaced by
 *    the neighbourhood's binomial mean, changed by at most r * S levels: ripples go, the edge is never
 *    averaged across. Chroma is not deringed: subsampling already smooths its ringing, and in tuning
 *    filtering it lost more of the real colour edges than it removed.
 * `strong` uses larger a, b, r than `moderate` (see STRENGTHS). Alpha is copied; grey images have luma only.
 */
export interface DecompressKernelPayload {
  image: RawPixels;
  strength: 'moderate' | 'strong';
}

interface StrengthParameters {
  /** a = alpha / S: the largest boundary step, in artefact steps, taken for an artefact. */
  edge: number;
  /** b = beta / S: the largest mean |second difference| inside both blocks for the box filter. */
  smooth: number;
  /** r: the most deringing changes a pixel, in artefact steps. */
  ring: number;
}

/**
 * Tuned on JPEGs (quality 10 to 95) of synthetic scenes, a circuit-board photograph and a graphic: per
 * image, `moderate` gains 0 to 0.7 dB PSNR and `strong` 0 to 1.3 dB; neither lost PSNR on any of them.
 */
const STRENGTHS: Record<DecompressKernelPayload['strength'], StrengthParameters> = {
  moderate: { edge: 2, smooth: 0.1, ring: 1 },
  strong: { edge: 5, smooth: 0.2, ring: 2 },
};

/** A block whose luma range exceeds max(this, 2 S) levels holds an edge and is deringed. */
const EDGE_RANGE = 24;

/** Removes JPEG blocking and ringing; returns new pixels of the same size and channels. */
export function decompressKernel(payload: DecompressKernelPayload): RawPixels {
  const { image, strength } = payload;
  checkPixels(image);
  const params = STRENGTHS[strength];
  const { width, height } = image;
  const planes = toPlanes(image);
  const luma = lumaGrid(planes[0], width, height);
  if (luma.step === 0) return { ...image, data: image.data.slice() };
  const deblock = (plane: Float32Array, grid: PlaneGrid) =>
    new Deblocker(plane, params.edge * grid.step, params.smooth * grid.step).run(width, height, grid);
  deblock(planes[0], luma);
  if (planes.length === 3) {
    const chroma = chromaGrid(planes[1], planes[2], width, height, luma);
    deblock(planes[1], chroma);
    deblock(planes[2], chroma);
  }
  dering(planes[0], width, height, edgeSides(planes[0], width, height, luma), params.ring * luma.step);
  return fromPlanes(planes, image);
}

/**
 * How strongly an 8x8 block grid shows: the mean |luma step| across the grid's block boundaries divided by
 * the mean |step| between the other neighbouring pixels, both axes together, steps clipped at 48 levels.
 * About 1 (0.95 to 1.1) for a photograph without blocks; smooth synthetic images read more when a few real
 * edges fall on one phase. Quality-10 JPEGs read 1.5 (detailed) to 10 (smooth). Under 16x16 pixels: 1.
 */
export function blockiness(image: RawPixels): number {
  return measureBlocking(image).blockiness;
}

/** Finds the luma block grid per axis and measures how strongly it shows. */
export function measureBlocking(image: RawPixels): BlockingMeasure {
  checkPixels(image);
  const { offsetX, offsetY, blockiness, step } = lumaGrid(toPlanes(image, true)[0], image.width, image.height);
  return { offsetX, offsetY, blockiness, step };
}

function checkPixels(image: RawPixels): void {
  const { width, height, channels, data } = image;
  if (!(channels >= 1 && channels <= 4) || data.length !== width * height * channels) {
    throw new RangeError(`decompress: ${width}x${height}x${channels} does not match ${data.length} bytes`);
  }
}

/** JPEG's full-range YCbCr planes (Cb, Cr centred on 0) of a colour image, or the grey plane. */
function toPlanes(image: RawPixels, lumaOnly = false): Float32Array[] {
  const { data, channels } = image;
  const count = image.width * image.height;
  const y = new Float32Array(count);
  if (channels < 3) {
    for (let i = 0; i < count; i++) y[i] = data[i * channels];
    return [y];
  }
  const cb = lumaOnly ? y : new Float32Array(count);
  const cr = lumaOnly ? y : new Float32Array(count);
  for (let i = 0, p = 0; i < count; i++, p += channels) {
    const r = data[p];
    const g = data[p + 1];
    const b = data[p + 2];
    y[i] = 0.299 * r + 0.587 * g + 0.114 * b;
    if (lumaOnly) continue;
    cb[i] = -0.168736 * r - 0.331264 * g + 0.5 * b;
    cr[i] = 0.5 * r - 0.418688 * g - 0.081312 * b;
  }
  return lumaOnly ? [y] : [y, cb, cr];
}

/** The planes back to 8-bit pixels in `like`'s layout, alpha copied from `like`. */
function fromPlanes(planes: Float32Array[], like: RawPixels): RawPixels {
  const { data, width, height, channels } = like;
  const out = new Uint8Array(data.length);
  const [y, cb, cr] = planes;
  // A Uint8Array store truncates: + 0.5 rounds; the clamps keep the values in 0..255.
  const clamp = (v: number) => (v <= 0 ? 0 : v >= 255 ? 255 : v + 0.5);
  if (channels < 3) {
    for (let i = 0, p = 0; i < y.length; i++, p += channels) out[p] = clamp(y[i]);
  } else {
    for (let i = 0, p = 0; i < y.length; i++, p += channels) {
      out[p] = clamp(y[i] + 1.402 * cr[i]);
      out[p + 1] = clamp(y[i] - 0.344136 * cb[i] - 0.714136 * cr[i]);
      out[p + 2] = clamp(y[i] + 1.772 * cb[i]);
    }
  }
  if (channels % 2 === 0) for (let p = channels - 1; p < data.length; p += channels) out[p] = data[p];
  return { data: out, width, height, channels };
}

/** Deblocking of one plane in place (step 2 of the file's doc comment); alpha and beta in levels. */
class Deblocker {
  private readonly line = new Float32Array(32);

  constructor(
    private readonly plane: Float32Array,
    private readonly alpha: number,
    private readonly beta: number,
  ) {}

  /** Filters across the vertical boundaries of `grid`, then across the horizontal ones. */
  run(width: number, height: number, grid: PlaneGrid): void {
    if (this.alpha < 1) return;
    const { periodX, periodY } = grid;
    for (let y = 0; y < height; y++) {
      for (let x = grid.offsetX || periodX; x < width; x += periodX) {
        this.boundary(y * width + x, 1, Math.min(periodX, x, width - x), periodX);
      }
    }
    for (let y = grid.offsetY || periodY; y < height; y += periodY) {
      const reach = Math.min(periodY, y, height - y);
      for (let x = 0; x < width; x++) this.boundary(y * width + x, width, reach, periodY);
    }
  }

  /**
   * Removes the artefact step at one boundary: `q0` is the first pixel after it, `step` the distance between
   * pixels along the line, `reach` how many pixels (<= period) each side has within the image.
   */
  private boundary(q0: number, step: number, reach: number, period: number): void {
    if (reach < period) return;
    const plane = this.plane;
    const p1 = plane[q0 - 2 * step];
    const p2 = plane[q0 - 3 * step];
    const q1 = plane[q0 + step];
    const q2 = plane[q0 + 2 * step];
    // The step between the sides' pixels 1 and 2 (4 pixels apart) less what their gradients (pixels 1 to 3)
    // predict. Pixels 0 are left out: upsampled chroma already blends them across the boundary.
    const d = Math.abs((q1 + q2 - p1 - p2) / 2 - (p1 - plane[q0 - 4 * step] + plane[q0 + 3 * step] - q1));
    // Textured blocks are left alone: softening their steps too lost more texture than it removed blocking.
    if (d <= this.alpha && d >= 0.5 && this.isSmooth(q0 - step, -step, period) && this.isSmooth(q0, step, period)) {
      this.boxRamp(q0, step, period);
    }
  }

  /** Whether the `count` pixels from `start` (`step` apart) have a mean |second difference| <= beta. */
  private isSmooth(start: number, step: number, count: number): boolean {
    const plane = this.plane;
    let bumps = 0;
    // From pixel 1: pixel 0 may carry part of the step (upsampled chroma).
    for (let i = 2, at = start + 2 * step; i < count - 1; i++, at += step) {
      bumps += Math.abs(plane[at - step] - 2 * plane[at] + plane[at + step]);
    }
    return bumps <= this.beta * (count - 3);
  }

  /**
   * Replaces the `period` pixels nearest the boundary (half a block each side) by the mean of the period + 1
   * pixels centred on each: a step becomes a ramp, a linear gradient stays as it was.
   */
  private boxRamp(q0: number, step: number, period: number): void {
    const { plane, line } = this;
    const start = q0 - period * step;
    for (let j = 0; j < 2 * period; j++) line[j] = plane[start + j * step];
    const half = period >> 1;
    let sum = 0;
    for (let j = 0; j <= period; j++) sum += line[j];
    for (let j = half; j < period + half; j++) {
      plane[start + j * step] = sum / (period + 1);
      if (j + half + 1 < 2 * period) sum += line[j + half + 1] - line[j - half];
    }
  }
}

/**
 * Deringing of one plane in place: where `sides` labels a pixel and its 8 neighbours alike (the same side
 * of an edge), the 3x3 binomial mean replaces it, changed by at most `limit` levels. Rows are filtered
 * from copies of the unfiltered rows above, at and below.
 */
function dering(plane: Float32Array, width: number, height: number, sides: Uint8Array, limit: number): void {
  if (limit < 0.5 || height < 3) return;
  let [above, row, below] = [plane.slice(0, width), plane.slice(width, 2 * width), new Float32Array(width)];
  for (let y = 1; y < height - 1; y++) {
    below.set(plane.subarray((y + 1) * width, (y + 2) * width));
    for (let x = 1, i = y * width + 1; x < width - 1; x++, i++) {
      const side = sides[i];
      if (side === 0 || !sameSide(sides, i, width, side)) continue;
      const mean =
        (above[x - 1] + 2 * above[x] + above[x + 1] + 2 * (row[x - 1] + row[x + 1]) + 4 * row[x]) / 16 +
        (below[x - 1] + 2 * below[x] + below[x + 1]) / 16;
      plane[i] = row[x] + Math.max(-limit, Math.min(limit, mean - row[x]));
    }
    [above, row, below] = [row, below, above];
  }
}

function sameSide(sides: Uint8Array, i: number, width: number, side: number): boolean {
  for (let row = i - width; row <= i + width; row += width) {
    if (sides[row - 1] !== side || sides[row] !== side || sides[row + 1] !== side) return false;
  }
  return true;
}

/**
 * Per pixel: 0 outside the blocks that hold an edge (luma range > max(EDGE_RANGE, 2 S) levels), else 1 or
 * 2 for below or above the middle of its block's range: which side of the edge it lies on.
 */
function edgeSides(y: Float32Array, width: number, height: number, grid: PlaneGrid): Uint8Array {
  const across = Math.ceil((width + 8) / 8);
  const count = across * Math.ceil((height + 8) / 8);
  const [low, high] = [new Float32Array(count).fill(255), new Float32Array(count)];
  const columnBlock = Int32Array.from({ length: width }, (_, x) => (x + 8 - grid.offsetX) >> 3);
  const rowBlock = (row: number) => ((row + 8 - grid.offsetY) >> 3) * across;
  for (let row = 0, i = 0; row < height; row++) {
    for (let x = 0, blocks = rowBlock(row); x < width; x++, i++) {
      const b = blocks + columnBlock[x];
      if (y[i] < low[b]) low[b] = y[i];
      if (y[i] > high[b]) high[b] = y[i];
    }
  }
  const threshold = Math.max(EDGE_RANGE, 2 * grid.step);
  const sides = new Uint8Array(width * height);
  for (let row = 0, i = 0; row < height; row++) {
    for (let x = 0, blocks = rowBlock(row); x < width; x++, i++) {
      const b = blocks + columnBlock[x];
      if (high[b] - low[b] > threshold) sides[i] = y[i] < (high[b] + low[b]) / 2 ? 1 : 2;
    }
  }
  return sides;
}
