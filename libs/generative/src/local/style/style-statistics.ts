import { boxMean } from '@app/image-pipeline/planes';
import { readPrompt } from '../prompt-vocabulary';
import { labOf, type LabPlanes } from './lab';

/** What the transfer moves towards: per-channel (L, a, b) means and deviations, and the luma detail's deviation. */
export interface StyleStatistics {
  mean: [number, number, number];
  deviation: [number, number, number];
  /** Standard deviation of L minus its local mean (radius `detailRadius`): fine texture and local contrast. */
  detail: number;
}

/** The radius of the local mean that separates an image's base from its detail: 1/128 of its shorter side. */
export function detailRadius(width: number, height: number): number {
  return Math.max(1, Math.round(Math.min(width, height) / 128));
}

/**
 * The statistics of an image's Lab planes; `base` is its L's local mean (detailRadius). `skip`: pixels not counted
 * where non-zero (the object, whose colours stay); all are counted when it would leave too few.
 */
export function labStatistics(planes: LabPlanes, base: Float32Array, skip?: Uint8Array): StyleStatistics {
  const channels = [planes.L, planes.a, planes.b];
  const mean: [number, number, number] = [0, 0, 0];
  const deviation: [number, number, number] = [0, 0, 0];
  let counted = (i: number) => !skip || skip[i] === 0;
  let n = 0;
  for (let i = 0; i < planes.L.length; i++) if (counted(i)) n++;
  if (n < MIN_COUNTED * planes.L.length) {
    counted = () => true;
    n = planes.L.length;
  }
  for (let c = 0; c < 3; c++) {
    let sum = 0;
    let squares = 0;
    const values = channels[c];
    for (let i = 0; i < values.length; i++) {
      if (!counted(i)) continue;
      sum += values[i];
      squares += values[i] * values[i];
    }
    mean[c] = sum / n;
    deviation[c] = Math.sqrt(Math.max(0, squares / n - mean[c] * mean[c]));
  }
  let detailSquares = 0;
  for (let i = 0; i < planes.L.length; i++) if (counted(i)) detailSquares += (planes.L[i] - base[i]) ** 2;
  return { mean, deviation, detail: Math.sqrt(detailSquares / n) };
}

/** labStatistics counts every pixel when fewer than this share are left outside the object. */
const MIN_COUNTED = 0.05;

/** The local mean of L (the image's base layer) over the detail radius. */
export function baseLayer(L: Float32Array, width: number, height: number): Float32Array {
  return boxMean({ data: L, width, height }, detailRadius(width, height)).data;
}

/** How far a prompt's colours move the image's mean L and a, b at full style strength: a tint, not a repaint. */
const PROMPT_TINT = { L: 0.3, ab: 0.6 };

/** How far a light word moves the statistics: L and b shifts, and factors on L's deviation and on the detail. */
const LIGHT_EFFECTS: Record<string, { L?: number; a?: number; b?: number; contrast?: number; detail?: number }> = {
  warm: { a: 6, b: 18 },
  cool: { a: -3, b: -12 },
  bright: { L: 15 },
  dark: { L: -15 },
  soft: { contrast: 0.75, detail: 0.8 },
  hard: { contrast: 1.3, detail: 1.25 },
};

/**
 * The target statistics a prompt names, from the image's own (`source`): the image's mean a and b move 60% of the
 * way to the colours' mean (their L 30%: a colour word names a tint, not a repaint), and each light
 * shifts or scales them (LIGHT_EFFECTS). Undefined when the prompt names no colour and no light.
 */
export function promptStatistics(
  source: StyleStatistics,
  prompt?: string,
  negativePrompt?: string,
): StyleStatistics | undefined {
  const reading = readPrompt(prompt, negativePrompt);
  if (reading.colours.length === 0 && reading.lights.length === 0) return undefined;
  const mean: [number, number, number] = [...source.mean];
  const deviation: [number, number, number] = [...source.deviation];
  let detail = source.detail;
  if (reading.colours.length > 0) {
    const labs = reading.colours.map((colour) => labOf(colour.r, colour.g, colour.b));
    const average = (c: number) => labs.reduce((sum, lab) => sum + lab[c], 0) / labs.length;
    mean[0] += (average(0) - mean[0]) * PROMPT_TINT.L;
    mean[1] += (average(1) - mean[1]) * PROMPT_TINT.ab;
    mean[2] += (average(2) - mean[2]) * PROMPT_TINT.ab;
  }
  for (const light of reading.lights) {
    const effect = LIGHT_EFFECTS[light];
    mean[0] += effect.L ?? 0;
    mean[1] += effect.a ?? 0;
    mean[2] += effect.b ?? 0;
    deviation[0] *= effect.contrast ?? 1;
    detail *= effect.detail ?? 1;
  }
  return { mean, deviation, detail };
}
