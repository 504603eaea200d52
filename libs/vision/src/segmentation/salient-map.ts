import type { SegmentationProfile } from './segmentation-profiles';

/**
 * The model's input from 8-bit interleaved RGB at the profile's size: NCHW float32, each value divided by the
 * image's brightest value (at least 1e-6, as rembg does), then normalised by the profile's mean and std.
 */
export function toInputTensor(rgb: Uint8Array, pixels: number, profile: SegmentationProfile): Float32Array {
  let max = 0;
  for (let i = 0; i < pixels * 3; i++) if (rgb[i] > max) max = rgb[i];
  const scale = 1 / Math.max(max, 1e-6);
  const tensor = new Float32Array(pixels * 3);
  for (let c = 0; c < 3; c++) {
    const mean = profile.mean[c];
    const std = profile.std[c];
    const plane = c * pixels;
    for (let p = 0; p < pixels; p++) tensor[plane + p] = (rgb[p * 3 + c] * scale - mean) / std;
  }
  return tensor;
}

/**
 * The mask from the model's map (one value per pixel, row-major): through a sigmoid when the profile says so,
 * then stretched to 0..255 between its own minimum and maximum (rembg's normalisation). A flat map is all 0.
 */
export function toMask(map: Float32Array, profile: SegmentationProfile): Uint8Array {
  const values = profile.sigmoid ? map.map((value) => 1 / (1 + Math.exp(-value))) : map;
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const mask = new Uint8Array(values.length);
  const range = max - min;
  if (!(range > 0)) return mask;
  for (let i = 0; i < values.length; i++) mask[i] = Math.round(((values[i] - min) / range) * 255);
  return mask;
}
