import type { GenerationPreference, PortBox } from '@app/image-pipeline';
import { seededRandom } from '../seeded-random';
import { completeImage, type BorderVote, type CompletionSettings } from './image-completion';
import { CHANNELS, RADIUS } from './patch-match';
import { matchEdges } from './seam-offset';
import { clamp } from '../numbers';

export interface OutpaintInput {
  /** 3 channels, width * height * 3: the original at `inner`, zeros elsewhere. */
  data: Uint8Array;
  width: number;
  height: number;
  /** Where the original sits. */
  inner: PortBox;
  /** Blend width in px inside the original across its left/right (x) and top/bottom (y) edges; 0 = hard edge. */
  feather: { x: number; y: number };
  /**
   * 1 byte per canvas pixel, non-zero where the original shows the object (the segmentation mask): never copied
   * into the new area, so that a plant's leaves or a mug's handle do not reappear beside it. Optional.
   */
  exclude?: Uint8Array;
  seed: number;
  variant: number;
  preference: GenerationPreference;
}

/**
 * Time against quality (image-completion.ts): EM iterations per pyramid level, PatchMatch passes per iteration, and
 * the largest level that is searched (larger ones copy its matches at their detail).
 */
const SETTINGS: Record<GenerationPreference, CompletionSettings> = {
  fast: { iterations: { coarsest: 3, middle: 1, finest: 1 }, passes: 1, workPixels: 20_000 },
  optimal: { iterations: { coarsest: 5, middle: 2, finest: 1 }, passes: 2, workPixels: 40_000 },
  best: { iterations: { coarsest: 10, middle: 3, finest: 2 }, passes: 2, workPixels: 160_000 },
};

/** matchEdges: the step is smoothed along the edge over about 2 radius px, and fades over `fade` px outward. */
const SEAM = { radius: 4, fade: 6 };

/** Originals with a side shorter than this hold no patch worth matching: their nearest pixels extend them. */
const TINY = 2 * RADIUS + 2;

/**
 * The canvas filled outside `inner` by image completion from the original (image-completion.ts): patch search and
 * voting, coarse to fine, never copying a patch that touches `exclude`. Inside `inner` the original's bytes are
 * kept, except in the feather band, where the pixels that the fill's patches cover (the outer RADIUS px) blend
 * towards what the fill puts there (weight 1 - (depth + 0.5) / feather). Deterministic for a seed and variant;
 * another variant starts the search elsewhere. `preference` sets the iterations (SETTINGS).
 */
export function outpaintFill(input: OutpaintInput): Uint8Array {
  const { width, height, inner } = input;
  if (inner.width <= 0 || inner.height <= 0) return input.data.slice();
  if (inner.width === width && inner.height === height) return input.data.slice();
  if (Math.min(inner.width, inner.height) < TINY) return nearestFill(input.data.slice(), width, height, inner);

  const known = new Uint8Array(width * height);
  for (let y = inner.top; y < inner.top + inner.height; y++)
    known.fill(1, y * width + inner.left, y * width + inner.left + inner.width);
  let excluded: Uint8Array | undefined;
  if (input.exclude) {
    excluded = new Uint8Array(width * height);
    for (let i = 0; i < excluded.length; i++) excluded[i] = input.exclude[i] !== 0 ? 1 : 0;
  }
  const random = seededRandom((input.seed * 31 + input.variant) >>> 0);
  const { data, border } = completeImage(
    { data: input.data, width, height, known, excluded, knownSide: Math.min(inner.width, inner.height) },
    SETTINGS[input.preference],
    random,
  );
  // what is left of a colour step where the copies meet the original: closed, fading into the new area
  matchEdges(data, width, height, inner, SEAM.radius, SEAM.fade, excluded);
  featherInto(data, border, input);
  return data;
}

/** The feather band's pixels that the fill covers blend towards it; the rest of the original keeps its bytes. */
function featherInto(data: Uint8Array, border: BorderVote, input: OutpaintInput): void {
  const { width, inner, feather } = input;
  if (feather.x <= 0 && feather.y <= 0) return;
  const right = inner.left + inner.width;
  const bottom = inner.top + inner.height;
  const { pixels, values } = border;
  for (let k = 0; k < pixels.length; k++) {
    const at = pixels[k];
    const x = at % width;
    const y = (at - x) / width;
    if (x < inner.left || x >= right || y < inner.top || y >= bottom) continue;
    const depthY = Math.min(y - inner.top, bottom - 1 - y);
    const weight = featherWeight(Math.min(x - inner.left, right - 1 - x), feather.x, depthY, feather.y);
    if (weight >= 1) continue;
    for (let c = 0; c < 3; c++)
      data[at * 3 + c] = Math.round(data[at * 3 + c] * weight + values[k * CHANNELS + c] * (1 - weight));
  }
}

/** How much of the original a pixel of it keeps, 0..1, from its distances to the vertical and horizontal edges. */
function featherWeight(depthX: number, featherX: number, depthY: number, featherY: number): number {
  const wx = featherX > 0 ? Math.min(1, (depthX + 0.5) / featherX) : 1;
  const wy = featherY > 0 ? Math.min(1, (depthY + 0.5) / featherY) : 1;
  return Math.min(wx, wy);
}

/** Each new pixel takes the original's nearest pixel: for originals too small to hold a patch. */
function nearestFill(data: Uint8Array, width: number, height: number, inner: PortBox): Uint8Array {
  for (let y = 0; y < height; y++) {
    const sy = clamp(y, inner.top, inner.top + inner.height - 1);
    for (let x = 0; x < width; x++) {
      const sx = clamp(x, inner.left, inner.left + inner.width - 1);
      if (sx === x && sy === y) continue;
      data.copyWithin((y * width + x) * 3, (sy * width + sx) * 3, (sy * width + sx) * 3 + 3);
    }
  }
  return data;
}
