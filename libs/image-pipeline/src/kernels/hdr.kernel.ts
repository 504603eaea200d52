import type { RawPixels } from '../workers/raw-pixels';

/**
 * Local tone mapping: dark neighbourhoods are lifted, bright ones kept, local contrast and colour kept.
 *
 * For each pixel, with every value in 0..1 (8-bit value / 255, gamma-encoded as stored):
 * - L: its luma, 0.2126 R + 0.7152 G + 0.0722 B (the sRGB / Rec. 709 weights; grey: the value itself).
 * - B: the edge-aware local average of L, from a bilateral grid (Paris & Durand 2006): L is accumulated
 *   into cells of about 2% of the longer side by 1/8 of the luma range, the grid is blurred, and B is read
 *   back at (x, y, L). Only neighbours of similar luma count, so across a strong edge the dark side averages
 *   dark pixels and the bright side bright ones: no dark band beside a bright edge (halo).
 * - k = K * (intensity / 100) * (1 - B)^3 with K = 4: how much this neighbourhood is lifted; large in dark
 *   neighbourhoods, about zero in bright ones ((1 - 0.85)^3 * 4 = 0.014).
 * - L' = L (1 + k) / (1 + k L): a rational shadow curve. It is monotonic in L, fixes 0 and 1, never lowers
 *   a value (L' >= L) and never passes 1, so highlights are kept and nothing clips; its slope at black is
 *   1 + k <= 5, so deep-shadow noise is amplified at most fivefold (a power curve's slope there is infinite).
 *   Over a flat area (B = L) the curve stays monotonic for any K < 16.
 * - every colour channel is multiplied by the same gain L'/L = (1 + k) / (1 + k L), so hue and saturation
 *   ratios are kept; the gain is capped at 1 / max(R, G, B) so that a saturated colour does not clip.
 * The effect grows monotonically with intensity (k does); intensity 0 returns the input bytes.
 * With `stitching` (360° equirectangular panoramas) the grid wraps around horizontally, so the left edge's
 * neighbourhood includes the right edge's pixels and the two edges meet without a seam.
 */
export interface HdrKernelPayload {
  image: RawPixels;
  /** 0..100; 0 is the identity. */
  intensity: number;
  /** Wrap the neighbourhood around the left and right edges (360° panoramas). */
  stitching: boolean;
}

/** K: the lift k of a black neighbourhood at intensity 100. */
const MAX_LIFT = 4;
/** The grid's spatial cell as a fraction of the longer side: the neighbourhood's scale. */
const CELL_FRACTION = 1 / 50;
/** The grid's range cell, in luma 0..1: neighbours about this much darker or brighter count less. */
const RANGE_CELL = 1 / 8;
/** Luma weights in 1/256 (Rec. 709: 0.2126, 0.7152, 0.0722), so an 8-bit luma sum is 0..65280. */
const LUMA_R = 54;
const LUMA_G = 183;
const LUMA_B = 19;
const LUMA_SCALE = 1 / (255 * 256);

/** Tone-maps `payload.image`; returns new pixels of the same size and channels (alpha copied). */
export function hdrKernel(payload: HdrKernelPayload): RawPixels {
  const { image, stitching } = payload;
  checkPixels(image);
  const intensity = Math.min(100, Math.max(0, payload.intensity));
  if (!(intensity > 0)) return { ...image, data: image.data.slice() };
  const grid = new BilateralGrid(image.width, image.height, stitching);
  splatImage(image, grid);
  grid.blur();
  return applyGain(image, grid, MAX_LIFT * (intensity / 100));
}

function checkPixels(image: RawPixels): void {
  const { width, height, channels, data } = image;
  if (!(channels >= 1 && channels <= 4) || data.length !== width * height * channels) {
    throw new RangeError(`hdr: ${width}x${height}x${channels} does not match ${data.length} bytes`);
  }
}

/** Writes row `y`'s luma, 0..1, into `out` (width values). */
function lumaRow(image: RawPixels, y: number, out: Float32Array): void {
  const { data, width, channels } = image;
  let p = y * width * channels;
  if (channels < 3) {
    for (let x = 0; x < width; x++, p += channels) out[x] = data[p] / 255;
    return;
  }
  for (let x = 0; x < width; x++, p += channels) {
    out[x] = (LUMA_R * data[p] + LUMA_G * data[p + 1] + LUMA_B * data[p + 2]) * LUMA_SCALE;
  }
}

function splatImage(image: RawPixels, grid: BilateralGrid): void {
  const luma = new Float32Array(image.width);
  for (let y = 0; y < image.height; y++) {
    lumaRow(image, y, luma);
    grid.splatRow(y, luma);
  }
}

/**
 * A bilateral grid over (x, y, luma) with homogeneous (sum, weight) cells: blurring both and dividing
 * after slicing is an edge-aware average whose borders need no special case (empty cells weigh nothing).
 */
class BilateralGrid {
  /** Cells across, down and along luma. */
  readonly nx: number;
  readonly ny: number;
  readonly nz: number;
  /** Interleaved (sum of luma, count) per cell, at ((cy * nx + cx) * nz + cz) * 2. */
  private readonly cells: Float32Array;
  /** Per column: the two cells a pixel reads (offsets within a row of cells), the second's weight, the nearest. */
  private readonly col0: Int32Array;
  private readonly col1: Int32Array;
  private readonly colT: Float32Array;
  private readonly colNear: Int32Array;
  /** The same per row (offsets of rows of cells). */
  private readonly row0: Int32Array;
  private readonly row1: Int32Array;
  private readonly rowT: Float32Array;
  private readonly rowNear: Int32Array;

  constructor(width: number, height: number, wrap: boolean) {
    const cell = Math.max(1, Math.max(width, height) * CELL_FRACTION);
    // Whole cells per axis, so that with `wrap` the grid's period is exactly the image's width.
    this.nx = Math.max(1, Math.round(width / cell));
    this.ny = Math.max(1, Math.round(height / cell));
    this.nz = Math.round(1 / RANGE_CELL) + 1;
    this.cells = new Float32Array(this.nx * this.ny * this.nz * 2);
    this.wrap = wrap;
    [this.col0, this.col1, this.colT, this.colNear] = axisLookup(width, this.nx, wrap, this.nz * 2);
    [this.row0, this.row1, this.rowT, this.rowNear] = axisLookup(height, this.ny, false, this.nx * this.nz * 2);
  }

  private readonly wrap: boolean;

  /** Adds image row `y` (luma 0..1 per pixel) to the nearest cells. */
  splatRow(y: number, luma: Float32Array): void {
    const { cells, colNear } = this;
    const row = this.rowNear[y];
    for (let x = 0; x < luma.length; x++) {
      const at = row + colNear[x] + ((luma[x] / RANGE_CELL + 0.5) | 0) * 2;
      cells[at] += luma[x];
      cells[at + 1] += 1;
    }
  }

  /** A [1 4 6 4 1] / 16 blur across and down (about one cell's sigma), [1 2 1] / 4 along luma. */
  blur(): void {
    const { nx, ny, nz, cells } = this;
    const pair = nz * 2;
    blurAxis(cells, { length: nx, step: pair, lines: ny, lineStep: nx * pair, block: pair }, WIDE, this.wrap);
    blurAxis(cells, { length: ny, step: nx * pair, lines: 1, lineStep: 0, block: nx * pair }, WIDE, false);
    blurAxis(cells, { length: nz, step: 2, lines: nx * ny, lineStep: pair, block: 2 }, NARROW, false);
  }

  /** Interpolates, into `slab` (nx * nz pairs), the two rows of cells that image row `y` reads. */
  rowSlab(y: number, slab: Float32Array): void {
    const { cells } = this;
    const a = this.row0[y];
    const b = this.row1[y];
    const t = this.rowT[y];
    for (let i = 0; i < slab.length; i++) slab[i] = cells[a + i] + t * (cells[b + i] - cells[a + i]);
  }

  /** The local average 0..1 at column `x` of the row whose `slab` this is, for luma 0..1. */
  sliceAt(slab: Float32Array, x: number, luma: number): number {
    const z = luma / RANGE_CELL;
    const z0 = Math.min(this.nz - 2, z | 0);
    const tz = z - z0;
    const tx = this.colT[x];
    const a = this.col0[x] + z0 * 2;
    const b = this.col1[x] + z0 * 2;
    const sumA = slab[a] + tz * (slab[a + 2] - slab[a]);
    const sumB = slab[b] + tz * (slab[b + 2] - slab[b]);
    const weightA = slab[a + 1] + tz * (slab[a + 3] - slab[a + 1]);
    const weightB = slab[b + 1] + tz * (slab[b + 3] - slab[b + 1]);
    const weight = weightA + tx * (weightB - weightA);
    return weight > 1e-6 ? (sumA + tx * (sumB - sumA)) / weight : luma;
  }

  slabSize(): number {
    return this.nx * this.nz * 2;
  }
}

/** The blur taps across and down (a binomial of sigma 1 cell), and along luma (sigma 0.7 cell). */
const WIDE = [1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16];
const NARROW = [1 / 4, 2 / 4, 1 / 4];

/**
 * For `size` pixels over `cells` cells of one axis: the two cells each pixel interpolates between (as
 * offsets, times `stride`), the second one's weight, and the nearest cell. Pixel centres map to
 * (i + 0.5) * cells / size - 0.5, so with `wrap` the last pixel sits one pixel before the first.
 */
function axisLookup(
  size: number,
  cells: number,
  wrap: boolean,
  stride: number,
): [Int32Array, Int32Array, Float32Array, Int32Array] {
  const first = new Int32Array(size);
  const second = new Int32Array(size);
  const weight = new Float32Array(size);
  const nearest = new Int32Array(size);
  const place = (cell: number) => (wrap ? ((cell % cells) + cells) % cells : Math.min(cells - 1, Math.max(0, cell)));
  for (let i = 0; i < size; i++) {
    const g = ((i + 0.5) * cells) / size - 0.5;
    const g0 = Math.floor(g);
    first[i] = place(g0) * stride;
    second[i] = place(g0 + 1) * stride;
    weight[i] = g - g0;
    nearest[i] = place(Math.round(g)) * stride;
  }
  return [first, second, weight, nearest];
}

/**
 * One axis of the grid: `length` elements `step` floats apart, each a contiguous `block` of floats; `lines`
 * such runs start `lineStep` floats apart.
 */
interface AxisLayout {
  length: number;
  step: number;
  lines: number;
  lineStep: number;
  block: number;
}

/** Convolves `data` in place along one axis; taps beyond the grid read zero, or wrap around with `wrap`. */
function blurAxis(data: Float32Array, axis: AxisLayout, taps: number[], wrap: boolean): void {
  const { length, step, lines, lineStep, block } = axis;
  const radius = (taps.length - 1) >> 1;
  const line = new Float32Array(length * block);
  for (let l = 0; l < lines; l++) {
    const base = l * lineStep;
    for (let i = 0; i < length; i++) line.set(data.subarray(base + i * step, base + i * step + block), i * block);
    for (let i = 0; i < length; i++) {
      const out = base + i * step;
      data.fill(0, out, out + block);
      for (let t = -radius; t <= radius; t++) {
        let j = i + t;
        if (wrap) j = ((j % length) + length) % length;
        else if (j < 0 || j >= length) continue;
        const w = taps[t + radius];
        for (let e = 0; e < block; e++) data[out + e] += w * line[j * block + e];
      }
    }
  }
}

/** Multiplies every colour channel by (1 + k) / (1 + k L), k = lift * (1 - B)^3, capped below clipping. */
function applyGain(image: RawPixels, grid: BilateralGrid, lift: number): RawPixels {
  const { data, width, height, channels } = image;
  const out = new Uint8Array(data.length);
  const colour = channels >= 3;
  const alpha = channels === 2 || channels === 4 ? channels - 1 : -1;
  const luma = new Float32Array(width);
  const slab = new Float32Array(grid.slabSize());
  for (let y = 0; y < height; y++) {
    lumaRow(image, y, luma);
    grid.rowSlab(y, slab);
    for (let x = 0, p = y * width * channels; x < width; x++, p += channels) {
      const l = luma[x];
      const shade = 1 - grid.sliceAt(slab, x, l);
      const k = lift * shade * shade * shade;
      let gain = (1 + k) / (1 + k * l);
      if (colour) {
        const r = data[p];
        const g = data[p + 1];
        const b = data[p + 2];
        const max = r > g ? (r > b ? r : b) : g > b ? g : b;
        if (gain * max > 255) gain = 255 / max;
        out[p] = r * gain + 0.5;
        out[p + 1] = g * gain + 0.5;
        out[p + 2] = b * gain + 0.5;
      } else {
        out[p] = Math.min(255, data[p] * gain + 0.5);
      }
      if (alpha > 0) out[p + alpha] = data[p + alpha];
    }
  }
  return { data: out, width, height, channels };
}
