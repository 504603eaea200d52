import type { RawPixels } from '../workers/raw-pixels';
import { invertSymmetric3 } from './guided-filter';

/**
 * A Gaussian mixture over RGB (0..255), as GrabCut (Rother, Kolmogorov and Blake, 2004) models the colours of the
 * foreground and of the background: per component its weight, mean, inverse covariance and the log of its
 * normalising constant, so that a pixel's cost is -ln sum_k w_k N(x; mu_k, Sigma_k).
 */
export interface ColourModel {
  /** Per component: ln w_k - ln((2 pi)^(3/2) sqrt(det Sigma_k)). */
  logScale: Float64Array;
  /** Per component: the mean, 3 values. */
  means: Float64Array;
  /** Per component: the inverse covariance, 9 values (row-major, symmetric). */
  inverses: Float64Array;
  components: number;
}

/**
 * The smallest variance of a channel (levels^2): a flat colour's JPEG noise and the ringing beside an edge (a
 * spread of 12 levels). Measured on the composite set while tuning: mean IoU 0.751 at 9, 0.760 at 64, 0.766 at
 * 144, 0.756 at 256; with the final settings 0.783 at 64 against 0.799 at 144. Below it a backdrop's pixels beside
 * a thin part looked foreign to their own backdrop; above it the object's colours and the backdrop's blur.
 */
const VARIANCE_FLOOR = 144;
/**
 * Added to every variance (levels^2), so that no covariance is singular: the colours of a tinted grey texture
 * (gravel, concrete) lie on one line in RGB, and without it their covariance has no inverse.
 */
const RIDGE = 4;
const ROUNDS = 6;

/**
 * Fits a mixture of up to `components` full-covariance Gaussians to the pixels of `image` (3 or 4 channels) where
 * `select[i]` is non-zero, on at most `maxSamples` of them taken at a fixed stride (deterministic). Centres start
 * at the mean and then each farthest sample from the centres so far (deterministic k-means++); then hard-assignment
 * rounds (k-means, as GrabCut's own fitting does) and the Gaussians of the final clusters. Undefined when no pixel
 * is selected.
 */
export function fitColourModel(
  image: RawPixels,
  select: Uint8Array,
  components = 5,
  maxSamples = 20_000,
): ColourModel | undefined {
  const samples = sampleColours(image, select, maxSamples);
  const count = samples.length / 3;
  if (count === 0) return undefined;
  const k = Math.max(1, Math.min(components, count));
  const centres = initialCentres(samples, k);
  const labels = new Int32Array(count);
  for (let round = 0; round < ROUNDS; round++) {
    assign(samples, centres, labels);
    updateCentres(samples, labels, centres);
  }
  assign(samples, centres, labels);
  return gaussians(samples, labels, k);
}

/** -ln p(rgb | model) for every pixel where `where[i]` is non-zero, into `out` (other entries left as they are). */
export function colourCosts(model: ColourModel, image: RawPixels, where: Uint8Array, out: Float32Array): void {
  const { data, channels } = image;
  for (let i = 0; i < where.length; i++) {
    if (!where[i]) continue;
    const p = i * channels;
    out[i] = colourCost(model, data[p], data[p + 1], data[p + 2]);
  }
}

/** -ln p(rgb | model) of one colour (0..255 per channel). */
export function colourCost(model: ColourModel, r: number, g: number, b: number): number {
  const { logScale, means, inverses, components } = model;
  let best = -Infinity;
  let second = 0;
  for (let k = 0, m = 0, c = 0; k < components; k++, m += 9, c += 3) {
    const dr = r - means[c];
    const dg = g - means[c + 1];
    const db = b - means[c + 2];
    // the inverse is symmetric: its six distinct entries
    const d2 =
      inverses[m] * dr * dr +
      inverses[m + 4] * dg * dg +
      inverses[m + 8] * db * db +
      2 * (inverses[m + 1] * dr * dg + inverses[m + 2] * dr * db + inverses[m + 5] * dg * db);
    const term = logScale[k] - 0.5 * d2;
    // a running log-sum-exp: the sum of exp(term - best) over the components so far, less the best's own 1
    if (term > best) {
      second = best === -Infinity ? 0 : (second + 1) * Math.exp(best - term);
      best = term;
    } else if (term > best - 30) {
      // components more than 30 nats below the best add less than 1e-13: not worth an exp
      second += Math.exp(term - best);
    }
  }
  return -(best + Math.log1p(second));
}

function sampleColours(image: RawPixels, select: Uint8Array, maxSamples: number): Float64Array {
  let selected = 0;
  for (let i = 0; i < select.length; i++) if (select[i]) selected++;
  const stride = Math.max(1, Math.ceil(selected / maxSamples));
  const out = new Float64Array(Math.ceil(selected / stride) * 3);
  let seen = 0;
  let n = 0;
  for (let i = 0; i < select.length; i++) {
    if (!select[i]) continue;
    if (seen++ % stride !== 0) continue;
    const p = i * image.channels;
    out[n++] = image.data[p];
    out[n++] = image.data[p + 1];
    out[n++] = image.data[p + 2];
  }
  return out.subarray(0, n);
}

const distance2 = (samples: Float64Array, s: number, centres: Float64Array, c: number) => {
  const dr = samples[s * 3] - centres[c * 3];
  const dg = samples[s * 3 + 1] - centres[c * 3 + 1];
  const db = samples[s * 3 + 2] - centres[c * 3 + 2];
  return dr * dr + dg * dg + db * db;
};

/** The mean, then repeatedly the sample farthest from every centre so far. */
function initialCentres(samples: Float64Array, k: number): Float64Array {
  const count = samples.length / 3;
  const centres = new Float64Array(k * 3);
  for (let s = 0; s < count; s++) for (let c = 0; c < 3; c++) centres[c] += samples[s * 3 + c] / count;
  const nearest = new Float64Array(count).fill(Infinity);
  for (let j = 1; j < k; j++) {
    let far = 0;
    for (let s = 0; s < count; s++) {
      nearest[s] = Math.min(nearest[s], distance2(samples, s, centres, j - 1));
      if (nearest[s] > nearest[far]) far = s;
    }
    centres.set(samples.subarray(far * 3, far * 3 + 3), j * 3);
  }
  return centres;
}

function assign(samples: Float64Array, centres: Float64Array, labels: Int32Array): void {
  const k = centres.length / 3;
  for (let s = 0; s < labels.length; s++) {
    let best = 0;
    let bestD = Infinity;
    for (let c = 0; c < k; c++) {
      const d = distance2(samples, s, centres, c);
      if (d < bestD) {
        bestD = d;
        best = c;
      }
    }
    labels[s] = best;
  }
}

function updateCentres(samples: Float64Array, labels: Int32Array, centres: Float64Array): void {
  const k = centres.length / 3;
  const sums = new Float64Array(k * 4);
  for (let s = 0; s < labels.length; s++) {
    const c = labels[s];
    for (let j = 0; j < 3; j++) sums[c * 4 + j] += samples[s * 3 + j];
    sums[c * 4 + 3]++;
  }
  for (let c = 0; c < k; c++) {
    if (sums[c * 4 + 3] === 0) continue; // an empty cluster keeps its centre
    for (let j = 0; j < 3; j++) centres[c * 3 + j] = sums[c * 4 + j] / sums[c * 4 + 3];
  }
}

/** The Gaussian of each non-empty cluster (its share of the samples as weight). */
function gaussians(samples: Float64Array, labels: Int32Array, k: number): ColourModel {
  const count = labels.length;
  const stats = new Float64Array(k * 10); // n, 3 sums, 6 products
  for (let s = 0; s < count; s++) {
    const o = labels[s] * 10;
    const r = samples[s * 3];
    const g = samples[s * 3 + 1];
    const b = samples[s * 3 + 2];
    stats[o]++;
    stats[o + 1] += r;
    stats[o + 2] += g;
    stats[o + 3] += b;
    stats[o + 4] += r * r;
    stats[o + 5] += r * g;
    stats[o + 6] += r * b;
    stats[o + 7] += g * g;
    stats[o + 8] += g * b;
    stats[o + 9] += b * b;
  }
  const kept = [...Array(k).keys()].filter((c) => stats[c * 10] > 0);
  const model: ColourModel = {
    logScale: new Float64Array(kept.length),
    means: new Float64Array(kept.length * 3),
    inverses: new Float64Array(kept.length * 9),
    components: kept.length,
  };
  kept.forEach((c, j) => {
    const o = c * 10;
    const n = stats[o];
    const m = [stats[o + 1] / n, stats[o + 2] / n, stats[o + 3] / n];
    const cov = (a: number, b: number, at: number) => stats[o + at] / n - m[a] * m[b];
    const s00 = Math.max(VARIANCE_FLOOR, cov(0, 0, 4) + RIDGE);
    const s11 = Math.max(VARIANCE_FLOOR, cov(1, 1, 7) + RIDGE);
    const s22 = Math.max(VARIANCE_FLOOR, cov(2, 2, 9) + RIDGE);
    const s01 = cov(0, 1, 5);
    const s02 = cov(0, 2, 6);
    const s12 = cov(1, 2, 8);
    // positive definite: the ridge is added to the diagonal of a positive semi-definite matrix
    const inverse = new Float64Array(6);
    const det = invertSymmetric3(s00, s01, s02, s11, s12, s22, inverse);
    const [i00, i01, i02, i11, i12, i22] = inverse;
    model.means.set(m, j * 3);
    model.inverses.set([i00, i01, i02, i01, i11, i12, i02, i12, i22], j * 9);
    model.logScale[j] = Math.log(n / count) - 1.5 * Math.log(2 * Math.PI) - 0.5 * Math.log(det);
  });
  return model;
}
