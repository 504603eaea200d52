/**
 * Finding a JPEG's 8x8 block grid in decoded pixels and how strongly it shows (step 1 of
 * decompress.kernel.ts's doc comment): per axis, the phase with the most steps between flat surroundings,
 * and S, the typical artefact step in levels.
 */
/** The luma block grid and how strongly it shows. */
export interface BlockingMeasure {
  /** The column (0..7) where blocks start: boundaries lie between columns offsetX - 1 + 8k and offsetX + 8k. */
  offsetX: number;
  /** The row (0..7) where blocks start. */
  offsetY: number;
  /** See {@link blockiness}. */
  blockiness: number;
  /** The typical luma step between flat blocks in levels, 0..48: about the DC quantum / 8; 0 without a grid. */
  step: number;
}

/** Steps are clipped at this many levels, so that a few strong real edges do not dominate the measures. */
const STEP_CLIP = 48;
/** A step between flat surroundings: at least FLAT_STEP levels, the steps beside it below FLAT_CONTEXT. */
const FLAT_STEP = 2;
const FLAT_CONTEXT = 3;
/** The least share of boundary positions that artefactStep divides by (a quality-10 JPEG has about 0.4). */
const MIN_RATE = 0.1;
/**
 * How much more often (as a share of positions) boundaries must have steps between flat surroundings than
 * the other phases for a grid to count: not at all below the first, fully from the second. JPEGs of
 * quality 75 and below measure 0.07 to 0.25, images without blocks 0.001 to 0.01, quality 95 0.01 to 0.02.
 */
const GRID_RATE = [0.01, 0.05];
/** Above this many pixels the grid is measured on a sample of lines: the phase means settle long before. */
const SAMPLED_PIXELS = 2_000_000;
/** One plane's block grid: per axis the period (8, or 16 for subsampled chroma) and the first boundary. */
export interface PlaneGrid {
  periodX: number;
  periodY: number;
  offsetX: number;
  offsetY: number;
  /** S, in levels (see artefactStep). */
  step: number;
}

/**
 * Per phase (position mod period) of one axis: `abs`, the mean clipped |step|; `flat`, the mean of the
 * steps between flat surroundings (others count 0); `rate`, the share of such steps. Mean over planes.
 */
type PhaseStats = Record<'abs' | 'flat' | 'rate', Float64Array>;

/** Per axis (across, down), the phase statistics of one plane or the mean over several. */
function planeStats(planes: Float32Array[], width: number, height: number, period: number): PhaseStats[] {
  const zeros = () => new Float64Array(period);
  const axes = [0, 1].map(() => ({ abs: zeros(), flat: zeros(), rate: zeros() }));
  const every = Math.max(1, Math.floor((width * height) / SAMPLED_PIXELS));
  for (const plane of planes) {
    axes.forEach((into, axis) => addAxisStats(plane, { width, height, down: axis === 1, every }, into));
  }
  // The mean over the planes, so that Cb and Cr together meet the same thresholds as luma alone.
  for (const means of axes.flatMap((into) => Object.values(into)))
    means.forEach((v, p) => (means[p] = v / planes.length));
  return axes;
}

/** How addAxisStats walks a width x height plane: along rows, or `down` columns; on every `every`th line. */
type Walk = { width: number; height: number; down: boolean; every: number };

/**
 * Adds one plane's statistics along one axis to `into`. Both axes are walked row
 * by row: walking down columns would miss the cache on every pixel.
 */
function addAxisStats(plane: Float32Array, walk: Walk, into: PhaseStats): void {
  const { width, height, down, every } = walk;
  const period = into.abs.length;
  const [step, length, rowStep, columnStep] = down ? [width, height, 1, every] : [1, width, every, 1];
  const [sums, flats, flatCounts, counts] = [0, 1, 2, 3].map(() => new Float64Array(period));
  for (let y = down ? 1 : 0; y < height; y += rowStep) {
    for (let x = down ? 0 : 1; x < width; x += columnStep) {
      const i = down ? y : x;
      const at = y * width + x;
      const d = Math.min(STEP_CLIP, Math.abs(plane[at] - plane[at - step]));
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

/** The mean of `means` over the `boundaries` phases and over the others. */
function split(means: Float64Array, boundaries: number[]): { boundary: number; inner: number } {
  let boundary = 0;
  let inner = 0;
  means.forEach((mean, phase) => (boundaries.includes(phase) ? (boundary += mean) : (inner += mean)));
  return { boundary: boundary / boundaries.length, inner: inner / (means.length - boundaries.length) };
}

/**
 * The grid phase: the one with the most steps between flat surroundings (each row of a long real edge
 * counts once, like each artefact step), or with the largest mean step where no phase has such steps.
 */
function strongest(stats: PhaseStats): number {
  const score = stats.rate.some((rate) => rate > 0.001) ? stats.rate : stats.abs;
  return score.indexOf(Math.max(...score));
}

/**
 * S, the typical artefact step in levels: at the boundary phases, the steps between flat surroundings in
 * excess of those at the other phases, divided by how often such steps occur at the boundaries. JPEG's
 * flat blocks meet with steps of whole DC quanta, which this recovers even where most neighbouring blocks
 * do not step at all. It is weighted by how clearly boundaries have more such steps than other phases
 * (GRID_RATE), so that a few real edges on one phase of an image without blocks do not read as a grid.
 */
function artefactStep(axes: PhaseStats[], boundaries: number[][]): number {
  let excess = 0;
  let rate = 0;
  let extraRate = 0;
  axes.forEach((stats, axis) => {
    const flat = split(stats.flat, boundaries[axis]);
    const share = split(stats.rate, boundaries[axis]);
    excess += flat.boundary - flat.inner;
    rate += share.boundary;
    extraRate += (share.boundary - share.inner) / axes.length;
  });
  const confidence = Math.min(1, Math.max(0, (extraRate - GRID_RATE[0]) / (GRID_RATE[1] - GRID_RATE[0])));
  return (confidence * Math.max(0, excess)) / Math.max(rate, MIN_RATE);
}

/** The luma grid (period 8), its artefact step and blockiness. */
export function lumaGrid(y: Float32Array, width: number, height: number): PlaneGrid & BlockingMeasure {
  if (width < 16 || height < 16) return { periodX: 8, periodY: 8, offsetX: 0, offsetY: 0, step: 0, blockiness: 1 };
  const axes = planeStats([y], width, height, 8);
  const [offsetX, offsetY] = axes.map(strongest);
  const [x, z] = [split(axes[0].abs, [offsetX]), split(axes[1].abs, [offsetY])];
  const [boundary, inner] = [x.boundary + z.boundary, x.inner + z.inner];
  return {
    ...{ periodX: 8, periodY: 8, offsetX, offsetY },
    step: artefactStep(axes, [[offsetX], [offsetY]]),
    blockiness: inner > 0 ? boundary / inner : boundary > 0 ? Infinity : 1,
  };
}

/**
 * The chroma grid per axis: period 16 at one of the two luma-grid phases where chroma was subsampled 2x
 * (only every other luma boundary steps), else period 8 at the luma grid's offset.
 */
export function chromaGrid(
  cb: Float32Array,
  cr: Float32Array,
  width: number,
  height: number,
  luma: PlaneGrid,
): PlaneGrid {
  if (width < 32 || height < 32) return { ...luma, step: 0 };
  const axes = planeStats([cb, cr], width, height, 16);
  const [x, y] = [luma.offsetX, luma.offsetY].map((offset, axis) => {
    const means = axes[axis].abs;
    const [a, b] = means[offset] >= means[offset + 8] ? [offset, offset + 8] : [offset + 8, offset];
    const inner = split(means, [a, b]).inner;
    const subsampled = means[b] - inner < 0.5 * (means[a] - inner);
    return subsampled ? { period: 16, offset: a, boundaries: [a] } : { period: 8, offset, boundaries: [a, b] };
  });
  return {
    ...{ periodX: x.period, periodY: y.period, offsetX: x.offset, offsetY: y.offset },
    step: artefactStep(axes, [x.boundaries, y.boundaries]),
  };
}
