import type { RawPixels } from '../workers/raw-pixels';
import { boxMean, type Plane } from './guided-filter';

/**
 * The blurred background behind an object, with the object itself left out of the blur.
 *
 * Every pixel weighs w = (1 - alpha)^4 (alpha: the object's mask, 0..1), and the result is the normalised convolution
 * blur(w * I) / blur(w): near the object only background pixels are averaged, so the object's colours do not
 * bleed into a halo around it, and the area the object covers is filled from its surroundings (the refined mask
 * then puts the sharp object back on top). Where no background pixel is within reach (deep inside a large
 * object) the pixel is left as it is: the object covers it. The fourth power keeps the mask's soft edge, whose
 * pixels are part object, from lending the background the object's colour (with bloom they would glow).
 *
 * - `gaussian`: three box passes, whose result is within a few percent of a Gaussian of sigma `radius`.
 * - `lens`: a disc of radius `radius` (a lens' out-of-focus spot) in linear light, with highlight bloom: a pixel
 *   above LENS_KNEE (near clipping, whose true brightness the 8-bit value cut off) weighs up to 1 + LENS_BLOOM
 *   times more in the average, so that a small bright area among darker ones spreads into a bright disc (bokeh)
 *   instead of fading into grey. Being a weight, not a gain, it leaves an evenly bright area (a pale wall) as
 *   bright as it was, and it weighs the three channels of a pixel alike, so no hue appears where a bright area
 *   meets a dark one.
 */
export interface BackgroundBlurPayload {
  /** sRGB 8-bit, 3 channels. */
  image: RawPixels;
  /** The object's alpha, 1 channel, same size. */
  mask: RawPixels;
  kind: 'gaussian' | 'lens';
  /** Gaussian sigma, or the disc's radius, in pixels of `image`. */
  radius: number;
}

const LENS_KNEE = 0.8;
const LENS_BLOOM = 24;
const GAMMA = 2.2;
/** Below this weight (in the disc's or kernel's sum) a pixel has no background near enough to average. */
const MIN_WEIGHT = 1e-3;

export function backgroundBlurKernel(payload: BackgroundBlurPayload): RawPixels {
  const { image, mask, kind, radius } = payload;
  const { width, height } = image;
  const n = width * height;
  const lens = kind === 'lens';
  const toValue = lens ? linearLut() : Float32Array.from({ length: 256 }, (_, v) => v);
  const weight = new Float32Array(n);
  const planes = [0, 1, 2].map(() => new Float32Array(n));
  for (let i = 0; i < n; i++) {
    const p = i * 3;
    const boost = lens ? bloom(Math.max(image.data[p], image.data[p + 1], image.data[p + 2]) / 255) : 1;
    const w = (1 - mask.data[i] / 255) ** 4 * boost;
    weight[i] = w;
    for (let c = 0; c < 3; c++) planes[c][i] = w * toValue[image.data[p + c]];
  }
  const blur = lens ? (plane: Plane) => discSum(plane, radius) : (plane: Plane) => gaussianMean(plane, radius);
  const den = blur({ data: weight, width, height }).data;
  const sums = planes.map((data) => blur({ data, width, height }).data);
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) {
      const p = i * 3 + c;
      if (den[i] < MIN_WEIGHT) {
        out[p] = image.data[p];
        continue;
      }
      const value = sums[c][i] / den[i];
      out[p] = lens ? Math.round(255 * Math.min(1, value) ** (1 / GAMMA)) : Math.min(255, Math.round(value));
    }
  }
  return { data: out, width, height, channels: 3 };
}

function linearLut(): Float32Array {
  return Float32Array.from({ length: 256 }, (_, v) => (v / 255) ** GAMMA);
}

/** 1 below the knee, rising smoothly to 1 + LENS_BLOOM at full brightness. */
function bloom(max: number): number {
  if (max <= LENS_KNEE) return 1;
  const t = (max - LENS_KNEE) / (1 - LENS_KNEE);
  return 1 + LENS_BLOOM * t * t * (3 - 2 * t);
}

/** Three box means whose widths approximate a Gaussian of `sigma` (Wells 1986; the 12 sigma^2 / n rule). */
export function gaussianMean(plane: Plane, sigma: number): Plane {
  const r = Math.max(1, Math.round((Math.sqrt((12 * sigma * sigma) / 3 + 1) - 1) / 2));
  return boxMean(boxMean(boxMean(plane, r), r), r);
}

/**
 * The sum over a disc of radius `r` around each pixel (outside the image counts as 0): per row, a prefix sum,
 * so each row of the disc costs one difference; (2r + 1) reads per pixel.
 */
export function discSum(plane: Plane, r: number): Plane {
  const { width, height, data } = plane;
  const radius = Math.max(1, Math.round(r));
  const prefix = new Float32Array((width + 1) * height);
  for (let y = 0; y < height; y++) {
    let sum = 0;
    const at = y * (width + 1);
    for (let x = 0; x < width; x++) {
      sum += data[y * width + x];
      prefix[at + x + 1] = sum;
    }
  }
  const half = Int32Array.from({ length: 2 * radius + 1 }, (_, k) =>
    Math.floor(Math.sqrt(radius * radius - (k - radius) ** 2)),
  );
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let dy = -radius; dy <= radius; dy++) {
      const row = y + dy;
      if (row < 0 || row >= height) continue;
      const h = half[dy + radius];
      const at = row * (width + 1);
      for (let x = 0; x < width; x++) {
        const right = Math.min(width, x + h + 1);
        const left = Math.max(0, x - h);
        out[y * width + x] += prefix[at + right] - prefix[at + left];
      }
    }
  }
  return { data: out, width, height };
}
