/**
 * Fidelity of an image to a reference of the same size, as super-resolution and restoration are judged:
 * PSNR over every channel value, and SSIM on luma (Wang et al. 2004: an 11-tap Gaussian window of sigma 1.5,
 * K1 0.01, K2 0.03, over 8-bit values; the windows that fit inside the image are averaged).
 */
export interface Pixels {
  data: ArrayLike<number>;
  width: number;
  height: number;
  channels: number;
}

/** Peak signal-to-noise ratio in dB of `image` against `reference` (8-bit values; Infinity when equal). */
export function psnr(image: Pixels, reference: Pixels): number {
  sameShape(image, reference);
  let squares = 0;
  for (let i = 0; i < reference.data.length; i++) squares += (image.data[i] - reference.data[i]) ** 2;
  return 10 * Math.log10((255 * 255 * reference.data.length) / squares);
}

const RADIUS = 5;
const SIGMA = 1.5;

/** Mean structural similarity of the two images' luma (BT.601 weights; grey is its own luma), 1 when equal. */
export function ssim(image: Pixels, reference: Pixels): number {
  sameShape(image, reference);
  const { width, height } = reference;
  const x = luma(image);
  const y = luma(reference);
  const product = (a: Float64Array, b: Float64Array) => a.map((value, i) => value * b[i]);
  const [mx, my, sxx, syy, sxy] = [x, y, product(x, x), product(y, y), product(x, y)].map((plane) =>
    gaussian(plane, width, height),
  );
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  let total = 0;
  let count = 0;
  for (let row = RADIUS; row < height - RADIUS; row++) {
    for (let col = RADIUS; col < width - RADIUS; col++) {
      const i = row * width + col;
      const vx = sxx[i] - mx[i] ** 2;
      const vy = syy[i] - my[i] ** 2;
      const cov = sxy[i] - mx[i] * my[i];
      total += ((2 * mx[i] * my[i] + c1) * (2 * cov + c2)) / ((mx[i] ** 2 + my[i] ** 2 + c1) * (vx + vy + c2));
      count++;
    }
  }
  return total / count;
}

function sameShape(a: Pixels, b: Pixels): void {
  if (a.width !== b.width || a.height !== b.height || a.channels !== b.channels) {
    throw new Error(`images differ: ${a.width}x${a.height}x${a.channels} and ${b.width}x${b.height}x${b.channels}`);
  }
}

function luma({ data, width, height, channels }: Pixels): Float64Array {
  const plane = new Float64Array(width * height);
  for (let i = 0; i < plane.length; i++) {
    const p = i * channels;
    plane[i] = channels >= 3 ? 0.299 * data[p] + 0.587 * data[p + 1] + 0.114 * data[p + 2] : data[p];
  }
  return plane;
}

/** The plane blurred by the separable Gaussian window; only values at least RADIUS from each edge are used. */
function gaussian(plane: Float64Array, width: number, height: number): Float64Array {
  const weights = Array.from({ length: 2 * RADIUS + 1 }, (_, i) => Math.exp(-((i - RADIUS) ** 2) / (2 * SIGMA ** 2)));
  const sum = weights.reduce((a, b) => a + b, 0);
  const kernel = weights.map((w) => w / sum);
  const across = new Float64Array(plane.length);
  const result = new Float64Array(plane.length);
  for (let row = 0; row < height; row++) {
    for (let col = RADIUS; col < width - RADIUS; col++) {
      let value = 0;
      for (let k = -RADIUS; k <= RADIUS; k++) value += kernel[k + RADIUS] * plane[row * width + col + k];
      across[row * width + col] = value;
    }
  }
  for (let row = RADIUS; row < height - RADIUS; row++) {
    for (let col = RADIUS; col < width - RADIUS; col++) {
      let value = 0;
      for (let k = -RADIUS; k <= RADIUS; k++) value += kernel[k + RADIUS] * across[(row + k) * width + col];
      result[row * width + col] = value;
    }
  }
  return result;
}
