/**
 * Colour maps for whole images: OKLab (Ottosson 2020, a perceptual space where lightness and hue separate), and a
 * 3-D lookup table that applies any per-colour function to a megapixel in a few milliseconds (the function runs
 * on 33^3 grid colours; pixels interpolate trilinearly).
 */

export type Lab = [number, number, number];

const LINEAR = Float64Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

/** sRGB 0..255 to OKLab (L 0..1). */
export function toOklab(r: number, g: number, b: number): Lab {
  return linearToOklab(linear(r), linear(g), linear(b));
}

function linear(value: number): number {
  const v = Math.min(255, Math.max(0, value));
  const low = Math.floor(v);
  return low === v ? LINEAR[v] : LINEAR[low] + (LINEAR[Math.min(255, low + 1)] - LINEAR[low]) * (v - low);
}

function linearToOklab(r: number, g: number, b: number): Lab {
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

/** OKLab to sRGB 0..255 (unclamped). */
export function fromOklab([L, a, b]: Lab): [number, number, number] {
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  const encode = (c: number) => {
    const v = Math.min(1, Math.max(0, c));
    return 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
  };
  return [
    encode(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
    encode(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
    encode(-0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s),
  ];
}

const N = 33;
const STEP = 255 / (N - 1);

/** A colour function (sRGB 0..255 in and out) tabulated for `applyColourTable`. */
export function colourTable(map: (r: number, g: number, b: number) => [number, number, number]): Float32Array {
  const table = new Float32Array(N * N * N * 3);
  for (let ri = 0; ri < N; ri++)
    for (let gi = 0; gi < N; gi++)
      for (let bi = 0; bi < N; bi++) {
        const at = ((ri * N + gi) * N + bi) * 3;
        const [r, g, b] = map(ri * STEP, gi * STEP, bi * STEP);
        table[at] = r;
        table[at + 1] = g;
        table[at + 2] = b;
      }
  return table;
}

/** Maps every pixel of `src` (3 channels) through the table into `dst` (3 channels, float 0..255). */
export function applyColourTable(table: Float32Array, src: Uint8Array, dst: Float32Array): void {
  for (let i = 0; i < src.length; i += 3) {
    const fr = src[i] / STEP;
    const fg = src[i + 1] / STEP;
    const fb = src[i + 2] / STEP;
    const r0 = Math.min(N - 2, fr | 0);
    const g0 = Math.min(N - 2, fg | 0);
    const b0 = Math.min(N - 2, fb | 0);
    const wr = fr - r0;
    const wg = fg - g0;
    const wb = fb - b0;
    const c000 = ((r0 * N + g0) * N + b0) * 3;
    const c001 = c000 + 3;
    const c010 = c000 + N * 3;
    const c011 = c010 + 3;
    const c100 = c000 + N * N * 3;
    const c101 = c100 + 3;
    const c110 = c100 + N * 3;
    const c111 = c110 + 3;
    for (let c = 0; c < 3; c++) {
      const x00 = table[c000 + c] + (table[c001 + c] - table[c000 + c]) * wb;
      const x01 = table[c010 + c] + (table[c011 + c] - table[c010 + c]) * wb;
      const x10 = table[c100 + c] + (table[c101 + c] - table[c100 + c]) * wb;
      const x11 = table[c110 + c] + (table[c111 + c] - table[c110 + c]) * wb;
      const y0 = x00 + (x01 - x00) * wg;
      const y1 = x10 + (x11 - x10) * wg;
      dst[i + c] = y0 + (y1 - y0) * wr;
    }
  }
}
