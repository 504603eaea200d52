// What a viewer sees of an outpaint, measured against the real photo it was cropped from (the outpaint suite,
// lib/outpaint-bench.mjs). Every measure is taken over the new area only (the canvas outside `inner`):
// - lowFrequency: mean absolute difference (0..255, per channel) of the result and the truth, both blurred with
//   a Gaussian of sigma LOW_SIGMA: whether the fill has the right colours and light at large scale;
// - gradientRatio: the result's mean luma gradient (|dx| + |dy|) over the truth's: 1 = as detailed as the real
//   surroundings, below 1 = smoother (a blur), above = busier;
// - textureDistance: how far the distribution of local contrast (luma standard deviation of 8x8 blocks) is from
//   the truth's (1-D Wasserstein distance over the truth's mean): 0 = the same mix of smooth and busy places;
// - blockiness: the strongest periodic excess of gradient on columns or rows at any period from 8 to 64 px
//   (the mean gradient on columns x = phase mod period over the mean of all columns, minus 1, its largest over
//   phases and periods): copied tiles whose edges line up show here; the truth's own value is its floor;
// - objectCopies: the share of the new area's textured pixels whose 7x7 neighbourhood (details only: minus a
//   blur) repeats one of the object's within a tenth of its own energy, found by PatchMatch over the object (the
//   service's own patch search, from the build): copies of the object (ghost leaves, a second handle).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import sharp from 'sharp';

const ROOT = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);

const LOW_SIGMA = 8;
const BLOCK = 8;
const PERIODS = { from: 8, to: 64 };
/** Sigma of the blur whose residue is the detail the copy test compares. */
const DETAIL_SIGMA = 3;
/** A copy: the match's squared error below this share of the patch's own detail energy. */
const COPY_SHARE = 0.1;
/** Patches with less detail energy than this per value (a flat wall) are not judged: anything matches them. */
const COPY_MIN_ENERGY = 64;
/** Judged patch centres: every COPY_STEP-th pixel of the new area along x and y (1: propagation needs neighbours). */
const COPY_STEP = 1;

/** 1 for canvas pixels outside `inner` (the new area). */
export function newArea(width, height, inner) {
  const mask = new Uint8Array(width * height).fill(1);
  for (let y = inner.top; y < inner.top + inner.height; y++)
    mask.fill(0, y * width + inner.left, y * width + inner.left + inner.width);
  return mask;
}

function luma(rgb) {
  const out = new Float32Array(rgb.length / 3);
  for (let p = 0; p < out.length; p++) out[p] = 0.299 * rgb[p * 3] + 0.587 * rgb[p * 3 + 1] + 0.114 * rgb[p * 3 + 2];
  return out;
}

async function blurred(rgb, width, height, sigma) {
  return new Uint8Array(
    await sharp(rgb, { raw: { width, height, channels: 3 } })
      .blur(sigma)
      .raw()
      .toBuffer(),
  );
}

/** Mean |dx| + |dy| of the luma over pixels of `area` whose right and lower neighbours are in it too. */
function meanGradient(grey, width, height, area) {
  let sum = 0;
  let count = 0;
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      const p = y * width + x;
      if (!area[p] || !area[p + 1] || !area[p + width]) continue;
      sum += Math.abs(grey[p + 1] - grey[p]) + Math.abs(grey[p + width] - grey[p]);
      count++;
    }
  }
  return count === 0 ? 0 : sum / count;
}

/** Luma standard deviation of each BLOCK x BLOCK block (on a grid) wholly inside `area`. */
function blockContrast(grey, width, height, area) {
  const values = [];
  for (let by = 0; by + BLOCK <= height; by += BLOCK) {
    for (let bx = 0; bx + BLOCK <= width; bx += BLOCK) {
      let sum = 0;
      let squares = 0;
      let inside = true;
      for (let y = by; y < by + BLOCK && inside; y++) {
        for (let x = bx; x < bx + BLOCK; x++) {
          const p = y * width + x;
          if (!area[p]) {
            inside = false;
            break;
          }
          sum += grey[p];
          squares += grey[p] * grey[p];
        }
      }
      if (!inside) continue;
      const n = BLOCK * BLOCK;
      values.push(Math.sqrt(Math.max(0, squares / n - (sum / n) ** 2)));
    }
  }
  return values;
}

/** The 1-D Wasserstein distance between two equally long samples, over the mean of `reference`. */
function wasserstein(values, reference) {
  if (reference.length === 0) return 0;
  const a = [...values].sort((x, y) => x - y);
  const b = [...reference].sort((x, y) => x - y);
  let distance = 0;
  let mean = 0;
  for (let i = 0; i < b.length; i++) {
    distance += Math.abs(a[i] - b[i]);
    mean += b[i];
  }
  return mean === 0 ? 0 : distance / mean;
}

/** See the top of this file: the largest periodic excess of gradient over columns (and, transposed, rows). */
export function blockiness(grey, width, height, area) {
  const along = (size, across, at) => {
    // energy[i]: mean |step| between line i and i + 1, over the new area
    const energy = new Float64Array(size - 1);
    const counts = new Float64Array(size - 1);
    for (let j = 0; j < across; j++) {
      for (let i = 0; i < size - 1; i++) {
        const p = at(i, j);
        const q = at(i + 1, j);
        if (!area[p] || !area[q]) continue;
        energy[i] += Math.abs(grey[q] - grey[p]);
        counts[i]++;
      }
    }
    const lines = [];
    for (let i = 0; i < size - 1; i++) if (counts[i] >= 8) lines.push({ i, e: energy[i] / counts[i] });
    if (lines.length === 0) return 0;
    const mean = lines.reduce((sum, line) => sum + line.e, 0) / lines.length;
    let worst = 0;
    for (let period = PERIODS.from; period <= PERIODS.to; period++) {
      const sums = new Float64Array(period);
      const n = new Float64Array(period);
      for (const line of lines) {
        sums[line.i % period] += line.e;
        n[line.i % period]++;
      }
      for (let phase = 0; phase < period; phase++) {
        // at least four lines of that phase: fewer say nothing about a period
        if (n[phase] >= 4 && mean > 0) worst = Math.max(worst, sums[phase] / n[phase] / mean - 1);
      }
    }
    return worst;
  };
  const columns = along(width, height, (i, j) => j * width + i);
  const rows = along(height, width, (i, j) => i * width + j);
  return Math.max(columns, rows);
}

/** The service's patch search, from the build (dist/): PatchField and sourceCentres. */
function patchMatch() {
  return require(join(ROOT, 'dist', 'libs', 'generative', 'src', 'local', 'fill', 'patch-match.js'));
}

/**
 * The share of the new area's textured pixels that copy the object (see the top of this file). `object`: 1 byte
 * per canvas pixel, non-zero on the object (inside `inner`).
 */
export async function objectCopies(rgb, width, height, area, object) {
  const { PatchField, RADIUS, CHANNELS, sourceCentres } = patchMatch();
  const smooth = await blurred(rgb, width, height, DETAIL_SIGMA);
  const data = new Float32Array(width * height * CHANNELS);
  for (let p = 0; p < width * height; p++) {
    for (let c = 0; c < 3; c++) data[p * CHANNELS + c] = rgb[p * 3 + c] - smooth[p * 3 + c];
  }
  // every pixel counts as known (full weight in the distance); sources: patches wholly on the object
  const excluded = new Uint8Array(width * height);
  for (let p = 0; p < excluded.length; p++) excluded[p] = object[p] ? 0 : 1;
  const level = { width, height, data, known: new Uint8Array(width * height).fill(1), excluded };
  const { valid, count } = sourceCentres(level);
  if (count === 0) return 0;
  const targets = [];
  const energy = [];
  for (let y = RADIUS; y < height - RADIUS; y += COPY_STEP) {
    for (let x = RADIUS; x < width - RADIUS; x += COPY_STEP) {
      const p = y * width + x;
      if (!area[p]) continue;
      let sum = 0;
      for (let dy = -RADIUS; dy <= RADIUS; dy++) {
        for (let dx = -RADIUS; dx <= RADIUS; dx++) {
          const at = (p + dy * width + dx) * CHANNELS;
          sum += data[at] ** 2 + data[at + 1] ** 2 + data[at + 2] ** 2;
        }
      }
      targets.push(p);
      energy.push(sum);
    }
  }
  let seed = 12345;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 4294967296;
  };
  const field = new PatchField(level, Int32Array.from(targets), valid, random);
  field.randomise();
  field.search(6, Math.max(width, height));
  let textured = 0;
  let copies = 0;
  const values = (2 * RADIUS + 1) ** 2 * 3;
  for (let t = 0; t < targets.length; t++) {
    if (energy[t] / values < COPY_MIN_ENERGY) continue;
    textured++;
    if (field.cost[t] < COPY_SHARE * energy[t]) copies++;
  }
  return textured === 0 ? 0 : copies / textured;
}

/** Every measure of one result (3 channels, the truth's size) against the truth, over the new area. */
export async function fillMetrics(result, truth, width, height, inner, object) {
  const area = newArea(width, height, inner);
  const [lowResult, lowTruth] = await Promise.all([
    blurred(result, width, height, LOW_SIGMA),
    blurred(truth, width, height, LOW_SIGMA),
  ]);
  let low = 0;
  let count = 0;
  for (let p = 0; p < area.length; p++) {
    if (!area[p]) continue;
    for (let c = 0; c < 3; c++) low += Math.abs(lowResult[p * 3 + c] - lowTruth[p * 3 + c]);
    count += 3;
  }
  const greyResult = luma(result);
  const greyTruth = luma(truth);
  const truthGradient = meanGradient(greyTruth, width, height, area);
  return {
    lowFrequency: count === 0 ? 0 : low / count,
    gradientRatio: truthGradient === 0 ? 1 : meanGradient(greyResult, width, height, area) / truthGradient,
    textureDistance: wasserstein(
      blockContrast(greyResult, width, height, area),
      blockContrast(greyTruth, width, height, area),
    ),
    blockiness: blockiness(greyResult, width, height, area),
    truthBlockiness: blockiness(greyTruth, width, height, area),
    objectCopies: object ? await objectCopies(result, width, height, area, object) : 0,
  };
}
