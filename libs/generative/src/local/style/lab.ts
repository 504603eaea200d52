/**
 * sRGB (8-bit, D65) to CIE L*a*b* and back, on whole images: L 0..100, a and b about -128..127. The sRGB transfer
 * curve is a lookup table each way (256 entries in, 16384 out), so a megapixel converts in tens of milliseconds.
 */

export interface LabPlanes {
  L: Float32Array;
  a: Float32Array;
  b: Float32Array;
}

const WHITE = [0.95047, 1, 1.08883];
const EPSILON = 216 / 24389;
const KAPPA = 24389 / 27;
const OUT_STEPS = 16384;

const TO_LINEAR = Float32Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

const TO_SRGB = Uint8Array.from({ length: OUT_STEPS + 1 }, (_, i) => {
  const c = i / OUT_STEPS;
  return Math.round(255 * (c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055));
});

function f(t: number): number {
  return t > EPSILON ? Math.cbrt(t) : (KAPPA * t + 16) / 116;
}

function fInverse(v: number): number {
  const cube = v * v * v;
  return cube > EPSILON ? cube : (116 * v - 16) / KAPPA;
}

/** The Lab planes of 3-channel sRGB `data`. */
export function toLab(data: Uint8Array): LabPlanes {
  const n = data.length / 3;
  const planes: LabPlanes = { L: new Float32Array(n), a: new Float32Array(n), b: new Float32Array(n) };
  for (let i = 0; i < n; i++) {
    const r = TO_LINEAR[data[i * 3]];
    const g = TO_LINEAR[data[i * 3 + 1]];
    const bl = TO_LINEAR[data[i * 3 + 2]];
    const fx = f((0.4124564 * r + 0.3575761 * g + 0.1804375 * bl) / WHITE[0]);
    const fy = f(0.2126729 * r + 0.7151522 * g + 0.072175 * bl);
    const fz = f((0.0193339 * r + 0.119192 * g + 0.9503041 * bl) / WHITE[2]);
    planes.L[i] = 116 * fy - 16;
    planes.a[i] = 500 * (fx - fy);
    planes.b[i] = 200 * (fy - fz);
  }
  return planes;
}

/** 3-channel sRGB bytes of Lab planes, out-of-gamut colours clipped per channel. */
export function fromLab(planes: LabPlanes): Uint8Array {
  const n = planes.L.length;
  const out = new Uint8Array(n * 3);
  const encode = (linear: number) => TO_SRGB[Math.round((linear <= 0 ? 0 : linear >= 1 ? 1 : linear) * OUT_STEPS)];
  for (let i = 0; i < n; i++) {
    const fy = (planes.L[i] + 16) / 116;
    const x = fInverse(fy + planes.a[i] / 500) * WHITE[0];
    const y = fInverse(fy);
    const z = fInverse(fy - planes.b[i] / 200) * WHITE[2];
    out[i * 3] = encode(3.2404542 * x - 1.5371385 * y - 0.4985314 * z);
    out[i * 3 + 1] = encode(-0.969266 * x + 1.8760108 * y + 0.041556 * z);
    out[i * 3 + 2] = encode(0.0556434 * x - 0.2040259 * y + 1.0572252 * z);
  }
  return out;
}

/** The Lab colour of one sRGB colour. */
export function labOf(r: number, g: number, b: number): [number, number, number] {
  const planes = toLab(Uint8Array.of(r, g, b));
  return [planes.L[0], planes.a[0], planes.b[0]];
}
