import type { Light } from '../prompt-vocabulary';
import { seededRandom } from '../seeded-random';

/** The light of one image: where it comes from (per variant, jittered by the seed) and what the light words do. */
export interface SceneLight {
  /** The light's position across the canvas, 0 (left) .. 1 (right). */
  x: number;
  /** Which way, and how far, the cast shadow leans: -1 .. 1 (negative = to the left), opposite the light. */
  lean: number;
  /** How much darker the backdrop gets away from the light, 0..1. */
  falloff: number;
  /** Multiplies the blur of the cast shadow (soft > 1 > hard). */
  softness: number;
  /** Multiplies the shadow's opacity. */
  opacity: number;
  /** Multiplies the backdrop's brightness. */
  exposure: number;
  /** Per channel multiplier (warm / cool), applied through {@link applyTint}. */
  tint: [number, number, number];
}

/**
 * `rgb` (0..255, changed in place) under the light's tint, as a photographer white-balances: whites stay white
 * (a warm light on a white wall is not cream), and the tint shows in proportion to how far a colour is from white:
 * the falloff, the shadows, the mid-tones of a surface.
 */
export function applyTint(rgb: Float64Array | number[], tint: readonly [number, number, number]): void {
  const white = Math.min(1, (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255);
  const weight = 1 - white * white;
  for (let c = 0; c < 3; c++) rgb[c] *= 1 + (tint[c] - 1) * weight;
}

/**
 * The four variants: key light from the left, from the right (a touch darker), overhead (a spot, stronger falloff,
 * a touch brighter) and low from the far left (a long shadow, the darkest). Each request's n-th image takes the
 * n-th, so the four images differ visibly in light direction, shadow and backdrop tone (and the surface's pattern,
 * drawn from each image's own seed).
 */
const VARIANTS = [
  { x: 0.3, lean: 0.55, falloff: 0.22, exposure: 1 },
  { x: 0.74, lean: -0.6, falloff: 0.18, exposure: 0.95 },
  { x: 0.5, lean: 0.12, falloff: 0.34, exposure: 1.05 },
  { x: 0.12, lean: 0.95, falloff: 0.14, exposure: 0.9 },
] as const;

export function sceneLight(variant: number, seed: number, lights: readonly Light[]): SceneLight {
  const preset = VARIANTS[((variant % 4) + 4) % 4];
  const random = seededRandom((seed ^ Math.imul(variant + 1, 0x9e3779b1)) >>> 0);
  const jitter = (random() - 0.5) * 0.08;
  const light: SceneLight = {
    x: Math.min(0.95, Math.max(0.05, preset.x + jitter)),
    lean: preset.lean + jitter,
    falloff: preset.falloff,
    softness: 1,
    opacity: 1,
    exposure: preset.exposure,
    tint: [1, 1, 1],
  };
  for (const word of lights) {
    if (word === 'warm') light.tint = [1.06, 1.0, 0.84];
    if (word === 'cool') light.tint = [0.9, 0.97, 1.08];
    if (word === 'soft') Object.assign(light, { softness: 1.7, opacity: light.opacity * 0.8 });
    if (word === 'hard') Object.assign(light, { softness: 0.45, opacity: light.opacity * 1.25 });
    if (word === 'bright') Object.assign(light, { exposure: light.exposure * 1.08, falloff: light.falloff * 0.6 });
    if (word === 'dark')
      Object.assign(light, { exposure: light.exposure * 0.72, falloff: Math.min(0.6, light.falloff * 1.8) });
  }
  return light;
}
