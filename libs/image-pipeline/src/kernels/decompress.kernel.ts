import type { RawPixels } from '../workers/raw-pixels';

/**
 * JPEG artefact removal on decoded pixels: deblocking, then deringing, on the YCbCr planes JPEG coded.
 *
 * 1. Grid. Per axis, the phase 0..7 with the most steps between flat surroundings (a cropped or flipped
 *    JPEG's grid no longer starts at 0; see {@link measureBlocking}). Chroma, usually subsampled 2x, has
 *    its own period per axis, 8 or 16 pixels. Per plane, S is the typical artefact step in levels (about
 *    a DC quantum: 10 at quality 10, 2.5 at 50), measured from the steps at the grid's boundaries between
 *    flat surroundings (see artefactStep); without a grid S is 0 and the image is returned as it was.
 * 2. Deblocking, per plane, across vertical then horizontal boundaries. At each boundary, d is the step
 *    between the two sides less what their gradients predict. If |d| <= alpha = a * S (a larger step is a
 *    real edge) and both blocks are smooth (mean |second difference| <= beta = b * S), a box filter of half
 *    a block each way turns the staircase into a ramp (a linear gradient passes unchanged).
 * 3. Deringing (mosquito noise beside edges), on luma: in blocks whose range exceeds max(24, 2 S) levels,
 *    each pixel whose 3x3 neighbourhood lies wholly on its side of the block's mid-level is replaced by
 *    the neighbourhood's binomial mean, changed by at most r * S levels: ripples go, the edge is never
 *    averaged across. (Chroma is not deringed: 2x subsampling already smooths its ringing, and
 *    filtering it more lost more of the real colour edges than it removed.)
 * `strong` uses larger a, b, r than `moderate` (see STRENGTHS). Alpha is copied; grey images have luma only.
 */
export interface DecompressKernelPayload {
  image: RawPixels;
  strength: 'moderate' | 'strong';
}

/** The 8x8 grid and how strongly it shows, measured on luma. */
export interface BlockingMeasure {
  /** The column (0..7) where a block starts: boundaries lie between columns offsetX - 1 + 8k and offsetX + 8k. */
  offsetX: number;
  /** The same for rows. */
  offsetY: number;
  /** See {@link blockiness}: 1 without a grid, larger the more the grid shows. */
  blockiness: number;
  /** The typical luma step between flat blocks, in levels 0..48: about a DC quantum / 8 for a JPEG. */
  step: number;
}

interface StrengthParameters {
  /** a = alpha / S: the largest boundary step, in artefact steps, treated as an artefact. */
  edge: number;
  /** b = beta / S: the largest mean |second difference| inside both blocks for the box filter. */
  smooth: number;
  /** r: the most deringing changes a pixel, in artefact steps. */
  ring: number;
}

/**
 * Tuned on JPEGs of quality 10 to 95 of synthetic scenes, a circuit-board photograph and a graphic: at
 * each quality `moderate` gains 0 to 0.7 dB PSNR and `strong` 0 to 1.3 dB, and neither loses more than
 * 0.03 dB where the grid is faint (quality 85 and up).
 */
const STRENGTHS: Record<DecompressKernelPayload['strength'], StrengthParameters> = {
  moderate: { edge: 2, smooth: 0.1, ring: 1 },
  strong: { edge: 5, smooth: 0.2, ring: 2 },
};

/** Steps are clipped at this many levels so that a few strong real edges do not dominate the measure. */
const STEP_CLIP = 48;
/** The smallest step, in levels, counted as a step between flat areas. */
const FLAT_STEP = 2;
/** Steps below this many levels beside a step make its surroundings flat. */
const FLAT_CONTEXT = 3;
/** The least share of boundary positions that artefactStep divides by (a quality-10 JPEG has about 0.4). */
const MIN_RATE = 0.1;
/**
 * How much more often (as a share of positions) boundaries must have steps between flat surroundings than
 * the other phases for a grid to count: not at all below the first, fully from the second. JPEGs of
 * quality 75 and below measure 0.07 to 0.25; images without blocks 0.001 to 0.01 (quality 95: 0.01 to 0.02).
 */
const GRID_RATE = [0.01, 0.05];
/** A block whose luma range exceeds max(this, 2 S) levels holds an edge and is deringed. */
const EDGE_RANGE = 24;

/** One plane's block grid: per axis the period (8, or 16 for subsampled chroma) and the first boundary. */
interface PlaneGrid {
  periodX: number;
  periodY: number;
  offsetX: number;
  offsetY: number;
  /** The typical artefact step between flat blocks, in levels (see artefactStep). */
  step: number;
}

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
 * How strongly an 8x8 JPEG block grid shows: the mean absolute luma step across the block boundaries of
 * the strongest grid offset, divided by the mean step between the other neighbouring pixels, horizontal
 * and vertical together (steps clipped at 48 levels). About 1.0 to 1.1 for a photograph without blocks
 * (smooth synthetic gradients with a few aligned edges read more); a quality-10 JPEG reads 1.5 to 2.5.
 * Images smaller than 16x16 read 1.
 */
export function blockiness(image: RawPixels): number {
  return measureBlocking(image).blockiness;
}

/** Finds the luma block grid per axis and measures how strongly it shows (see {@link blockiness}). */
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

/** The planes back to 8-bit pixels of `like`'s layout, alpha copied from `like`. */
function fromPlanes(planes: Float32Array[], like: RawPixels): RawPixels {
  const { data, width, height, channels } = like;
  const out = new Uint8Array(data.length);
  const [y, cb, cr] = planes;
  const clamp = (v: number) => (v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0);
  for (let i = 0, p = 0; i < y.length; i++, p += channels) {
    if (channels < 3) {
      out[p] = clamp(y[i]);
    } else {
      out[p] = clamp(y[i] + 1.402 * cr[i]);
      out[p + 1] = clamp(y[i] - 0.344136 * cb[i] - 0.714136 * cr[i]);
      out[p + 2] = clamp(y[i] + 1.772 * cb[i]);
    }
    if (channels === 2 || channels === 4) out[p + channels - 1] = data[p + channels - 1];
  }
  return { data: out, width, height, channels };
}

/**
 * Per phase (position mod period) of one axis, over all lines: `abs`, the mean clipped |step|; `flat`, the
 * mean of the clipped |steps| of at least FLAT_STEP levels whose surroundings are flat (the steps one
 * pixel further out on both sides below FLAT_CONTEXT levels), 0 for the others; `rate`, the share of such
 * steps.
 */
type PhaseStats = Record<'abs' | 'flat' | 'rate', Float64Array>;
const phaseStats = (period: number): PhaseStats => ({
  abs: new Float64Array(period),
  flat: new Float64Array(period),
  rate: new Float64Array(period),
});

/** Adds one plane's statistics across (`h`) and down (`v`) its rows to `h` and `v`. */
function addPlaneStats(plane: Float32Array, width: number, height: number, h: PhaseStats, v: PhaseStats): void {
  addAxisStats(plane, { length: width, step: 1, lines: height, lineStep: width }, h);
  addAxisStats(plane, { length: height, step: width, lines: width, lineStep: 1 }, v);
}

/** Adds one plane's statistics along one axis to `into` (see {@link PhaseStats}). */
function addAxisStats(plane: Float32Array, axis: Axis, into: PhaseStats): void {
  const { length, step, lines, lineStep } = axis;
  const period = into.abs.length;
  const sums = new Float64Array(period);
  const flats = new Float64Array(period);
  const flatCounts = new Float64Array(period);
  const counts = new Float64Array(period);
  for (let l = 0; l < lines; l++) {
    const start = l * lineStep;
    for (let i = 1, at = start + step; i < length; i++, at += step) {
      let d = Math.abs(plane[at] - plane[at - step]);
      if (d > STEP_CLIP) d = STEP_CLIP;
      const phase = i % period;
      sums[phase] += d;
      counts[phase]++;
      if (d < FLAT_STEP || i < 3 || i > length - 3) continue;
      // The steps one pixel out, not the adjacent ones: upsampled chroma spreads a step over 2 pixels.
      const before = Math.abs(plane[at - 2 * step] - plane[at - 3 * step]);
      const after = Math.abs(plane[at + 2 * step] - plane[at + step]);
      if (before < FLAT_CONTEXT && after < FLAT_CONTEXT) {
        flats[phase] += d;
        flatCounts[phase]++;
      }
    }
  }
  for (let p = 0; p < period; p++) {
    if (counts[p] === 0) continue;
    into.abs[p] += sums[p] / counts[p];
    into.flat[p] += flats[p] / counts[p];
    into.rate[p] += flatCounts[p] / counts[p];
  }
}

/** One axis of a plane: `lines` lines (starting `lineStep` apart) of `length` pixels `step` apart. */
type Axis = Record<'length' | 'step' | 'lines' | 'lineStep', number>;

/** Which phases are block boundaries. */
type Phases = (phase: number) => boolean;

/** The mean of `means` over the phases `chosen` accepts and over the others. */
function split(means: Float64Array, chosen: Phases): { boundary: number; inner: number } {
  let boundary = 0;
  let inner = 0;
  let count = 0;
  means.forEach((mean, phase) => (chosen(phase) ? ((boundary += mean), count++) : (inner += mean)));
  return { boundary: boundary / count, inner: inner / (means.length - count) };
}

/**
 * The grid phase: the one with the most steps between flat surroundings (each row of a long real edge
 * counts once, like each artefact step), or with the largest mean step where no phase has such steps.
 */
function strongest(stats: PhaseStats): number {
  const score = stats.rate.some((rate) => rate > 0.001) ? stats.rate : stats.abs;
  let best = 0;
  for (let p = 1; p < score.length; p++) if (score[p] > score[best]) best = p;
  return best;
}

/**
 * The typical artefact step in levels: at the boundary phases, the steps between flat surroundings in
 * excess of those at the other phases, divided by how often such steps occur at the boundaries. JPEG's
 * flat blocks meet with steps of whole DC quanta (about 10 levels at quality 10), which this recovers even
 * where most neighbouring blocks do not step at all. It is weighted by how clearly the boundaries have
 * more such steps than the other phases (see GRID_RATE), so that a few real edges that happen to lie on
 * one phase of an image without blocks do not read as a grid.
 */
function artefactStep(h: PhaseStats, isX: Phases, v: PhaseStats, isY: Phases): number {
  let excess = 0;
  let rate = 0;
  let extraRate = 0;
  for (const [stats, chosen] of [
    [h, isX],
    [v, isY],
  ] as const) {
    const flat = split(stats.flat, chosen);
    const share = split(stats.rate, chosen);
    excess += flat.boundary - flat.inner;
    rate += share.boundary;
    extraRate += (share.boundary - share.inner) / 2;
  }
  const confidence = Math.min(1, Math.max(0, (extraRate - GRID_RATE[0]) / (GRID_RATE[1] - GRID_RATE[0])));
  return (confidence * Math.max(0, excess)) / Math.max(rate, MIN_RATE);
}

/** The luma grid (period 8), its artefact step and blockiness. */
function lumaGrid(y: Float32Array, width: number, height: number): PlaneGrid & BlockingMeasure {
  if (width < 16 || height < 16) {
    return { periodX: 8, periodY: 8, offsetX: 0, offsetY: 0, step: 0, blockiness: 1 };
  }
  const [h, v] = [phaseStats(8), phaseStats(8)];
  addPlaneStats(y, width, height, h, v);
  const offsetX = strongest(h);
  const offsetY = strongest(v);
  const x = split(h.abs, (p) => p === offsetX);
  const z = split(v.abs, (p) => p === offsetY);
  const inner = x.inner + z.inner;
  return {
    periodX: 8,
    periodY: 8,
    offsetX,
    offsetY,
    step: artefactStep(
      h,
      (p) => p === offsetX,
      v,
      (p) => p === offsetY,
    ),
    blockiness: inner > 0 ? (x.boundary + z.boundary) / inner : x.boundary + z.boundary > 0 ? Infinity : 1,
  };
}

/**
 * The chroma grid per axis: period 16 at one of the two luma-grid phases where chroma was subsampled 2x
 * (only every other luma boundary steps), else period 8 at the luma grid's offset. Cb and Cr are measured
 * together.
 */
function chromaGrid(cb: Float32Array, cr: Float32Array, width: number, height: number, luma: PlaneGrid): PlaneGrid {
  if (width < 32 || height < 32) return { ...luma, step: 0 };
  const [h, v] = [phaseStats(16), phaseStats(16)];
  for (const plane of [cb, cr]) addPlaneStats(plane, width, height, h, v);
  const pick = (means: Float64Array, offset: number) => {
    const [a, b] = means[offset] >= means[offset + 8] ? [offset, offset + 8] : [offset + 8, offset];
    const inner = split(means, (p) => p !== a && p !== b).boundary;
    const subsampled = means[b] - inner < 0.5 * (means[a] - inner);
    const chosen: Phases = subsampled ? (p) => p === a : (p) => p === a || p === b;
    return { period: subsampled ? 16 : 8, offset: subsampled ? a : offset, chosen };
  };
  const x = pick(h.abs, luma.offsetX);
  const y = pick(v.abs, luma.offsetY);
  return {
    periodX: x.period,
    periodY: y.period,
    offsetX: x.offset,
    offsetY: y.offset,
    step: artefactStep(h, x.chosen, v, y.chosen),
  };
}

/** Deblocking of one plane in place (step 2 of the file's doc comment), alpha and beta in levels. */
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
    if (reach < 4) return;
    const plane = this.plane;
    const p1 = plane[q0 - 2 * step];
    const q1 = plane[q0 + step];
    const p2 = plane[q0 - 3 * step];
    const q2 = plane[q0 + 2 * step];
    // The step between the sides' pixels 1 and 2 (4 pixels apart) less what their gradients (pixels 1 to 3)
    // predict. Pixels 0 are left out: upsampled chroma already blends them across the boundary.
    const d = Math.abs((q1 + q2 - p1 - p2) / 2 - (p1 - plane[q0 - 4 * step] + plane[q0 + 3 * step] - q1));
    if (d > this.alpha || d < 0.5) return;
    // Textured blocks are left alone: softening their steps too lost more texture than it removed blocking.
    if (reach === period && this.isSmooth(q0 - step, -step, period) && this.isSmooth(q0, step, period)) {
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
 * of an edge), a 3x3 binomial average replaces it, changed by at most `limit` levels. Rows are filtered
 * from copies of the unfiltered rows above, at and below.
 */
function dering(plane: Float32Array, width: number, height: number, sides: Uint8Array, limit: number): void {
  if (limit < 0.5 || height < 3) return;
  let above = plane.slice(0, width);
  let row = plane.slice(width, 2 * width);
  let below = new Float32Array(width);
  for (let y = 1; y < height - 1; y++) {
    below.set(plane.subarray((y + 1) * width, (y + 2) * width));
    for (let x = 1, i = y * width + 1; x < width - 1; x++, i++) {
      const side = sides[i];
      if (side === 0 || !sameSide(sides, i, width, side)) continue;
      const mean =
        (above[x - 1] + 2 * above[x] + above[x + 1] + 2 * (row[x - 1] + row[x + 1]) + 4 * row[x]) / 16 +
        (below[x - 1] + 2 * below[x] + below[x + 1]) / 16;
      const change = mean - row[x];
      plane[i] = row[x] + (change > limit ? limit : change < -limit ? -limit : change);
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
  const low = new Float32Array(count).fill(255);
  const high = new Float32Array(count).fill(0);
  const blockOf = (x: number, row: number) => ((row + 8 - grid.offsetY) >> 3) * across + ((x + 8 - grid.offsetX) >> 3);
  for (let row = 0, i = 0; row < height; row++) {
    for (let x = 0; x < width; x++, i++) {
      const b = blockOf(x, row);
      if (y[i] < low[b]) low[b] = y[i];
      if (y[i] > high[b]) high[b] = y[i];
    }
  }
  const threshold = Math.max(EDGE_RANGE, 2 * grid.step);
  const sides = new Uint8Array(width * height);
  for (let row = 0, i = 0; row < height; row++) {
    for (let x = 0; x < width; x++, i++) {
      const b = blockOf(x, row);
      if (high[b] - low[b] > threshold) sides[i] = y[i] < (high[b] + low[b]) / 2 ? 1 : 2;
    }
  }
  return sides;
}
