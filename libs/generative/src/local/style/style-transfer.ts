import { fromLab, toLab } from './lab';
import { baseLayer, labStatistics, promptStatistics, type StyleStatistics } from './style-statistics';
import { clamp } from '../numbers';

export interface StyleInput {
  /** 3 channels, width * height * 3. */
  data: Uint8Array;
  width: number;
  height: number;
  /** 3 channels, any size. */
  reference?: { data: Uint8Array; width: number; height: number };
  /** Colour and light words (prompt-vocabulary.ts); used when there is no reference. */
  prompt?: string;
  negativePrompt?: string;
  /** 0..1 each. */
  styleStrength: number;
  denoisingStrength: number;
  depthStrength: number;
  /** 1 byte per pixel, non-zero on the object (the segmentation mask): it keeps its own colours. Optional. */
  object?: Uint8Array;
  /** Unused: the transfer is deterministic. */
  seed: number;
}

/**
 * The local backend's style transfer: colour and tone statistics moved towards the reference's (or the prompt's,
 * style-statistics.ts) in CIE Lab, structure kept per depthStrength. With s = styleStrength, d =
 * denoisingStrength, k = depthStrength, per channel c of (L, a, b), source mean m and deviation v, target M, V:
 *
 *   mean_t = m + s (M - m)            deviation_t = v + s (0.5 + 0.5 d) (V - v)      g_c = deviation_t / v
 *   a' = m + (a - m) g_a + (mean_t - m) w(L),   b' likewise (w: tintWeights, mean 1, less on whites and blacks),
 *   L' = mean_t + (base - m) g_L + detail * lerp(g_L, 1, k) * lerp(1, e, s d) * (1 - 0.5 s (1 - k))
 *
 * where base is L's local mean (radius 1/128 of the shorter side), detail = L - base, and e the reference's detail
 * deviation over the image's (each gain clamped to 0.25..4, e to 0.5..2). So s = 0 gives back the bytes, s = 1
 * with d = 1 the reference's means and deviations; depth 1 keeps the image's own edges at their own contrast
 * (depth 0 lets them scale with the tone and fade up to half); denoising lets contrast, saturation and fine
 * texture move towards the reference's. Without a reference and without colour or light words: the image as is.
 * With `object`, the statistics are the image's around the object, and the object's pixels are kept (keepObject).
 */
export function styleTransfer(input: StyleInput): Uint8Array {
  const s = unit(input.styleStrength);
  if (s === 0) return Uint8Array.from(input.data);
  const { width, height } = input;
  const planes = toLab(input.data);
  const base = baseLayer(planes.L, width, height);
  // the statistics of what is restyled: the image around the object
  const source = labStatistics(planes, base, input.object);
  const target = input.reference
    ? referenceStatistics(input.reference)
    : promptStatistics(source, input.prompt, input.negativePrompt);
  if (!target) return Uint8Array.from(input.data);
  const d = unit(input.denoisingStrength);
  const k = unit(input.depthStrength);
  const meanT = source.mean.map((m, c) => m + s * (target.mean[c] - m));
  const gain = source.deviation.map((v, c) => {
    const deviationT = v + s * (0.5 + 0.5 * d) * (target.deviation[c] - v);
    return v < 1e-3 ? 1 : clamp(deviationT / v, 0.25, 4);
  });
  const texture = source.detail < 1e-3 ? 1 : clamp(target.detail / source.detail, 0.5, 2);
  const detailGain = (gain[0] + (1 - gain[0]) * k) * (1 + (texture - 1) * s * d) * (1 - 0.5 * s * (1 - k));
  const { L, a, b } = planes;
  const tint = tintWeights(L);
  for (let i = 0; i < L.length; i++) {
    a[i] = source.mean[1] + (a[i] - source.mean[1]) * gain[1] + (meanT[1] - source.mean[1]) * tint[i];
    b[i] = source.mean[2] + (b[i] - source.mean[2]) * gain[2] + (meanT[2] - source.mean[2]) * tint[i];
    L[i] = meanT[0] + (base[i] - source.mean[0]) * gain[0] + (L[i] - base[i]) * detailGain;
  }
  const styled = fromLab(planes);
  if (input.object) keepObject(styled, input.data, input.object, width, height);
  return styled;
}

/**
 * The object's pixels back as they were: each pixel takes the original by the mean of the object mask over its
 * 3 x 3 neighbourhood (a one-pixel ramp at the mask's edge, no ring of either kept around it).
 */
function keepObject(styled: Uint8Array, original: Uint8Array, object: Uint8Array, width: number, height: number): void {
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let v = Math.max(0, y - 1); v <= Math.min(height - 1, y + 1); v++) {
        for (let u = Math.max(0, x - 1); u <= Math.min(width - 1, x + 1); u++) {
          sum += object[v * width + u] !== 0 ? 1 : 0;
          count++;
        }
      }
      const keep = sum / count;
      if (keep === 0) continue;
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) styled[at + c] = Math.round(styled[at + c] * (1 - keep) + original[at + c] * keep);
    }
  }
}

/**
 * How much of the a, b mean shift each pixel takes: w(L) = 1 - |L / 50 - 1|^3, normalised to a mean of 1, so
 * that whites and blacks stay nearer neutral (a blue cast on a white cup rim would leave the gamut and turn
 * cyan) while the mean still moves by exactly the shift.
 */
function tintWeights(L: Float32Array): Float32Array {
  const weights = new Float32Array(L.length);
  let sum = 0;
  for (let i = 0; i < L.length; i++) {
    weights[i] = 1 - Math.min(1, Math.abs(L[i] / 50 - 1)) ** 3;
    sum += weights[i];
  }
  const scale = sum > 0 ? L.length / sum : 1;
  for (let i = 0; i < L.length; i++) weights[i] *= scale;
  return weights;
}

function referenceStatistics(reference: { data: Uint8Array; width: number; height: number }): StyleStatistics {
  const planes = toLab(reference.data);
  return labStatistics(planes, baseLayer(planes.L, reference.width, reference.height));
}

function unit(value: number): number {
  return Number.isFinite(value) ? clamp(value, 0, 1) : 0;
}
