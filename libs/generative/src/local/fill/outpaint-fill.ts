import type { GenerationPreference, PortBox } from '@app/image-pipeline';
import { ColourGuide } from './colour-guide';
import { continueLowFrequency, matchEdges } from './low-frequency';
import { OriginalStats } from './original-stats';
import { seededRandom } from '../seeded-random';
import { overlapError, pastePatch, type PatchPlace, type QuiltCanvas, type Side } from './quilt-patch';

export interface OutpaintInput {
  /** 3 channels, width * height * 3: the original at `inner`, zeros elsewhere. */
  data: Uint8Array;
  width: number;
  height: number;
  /** Where the original sits. */
  inner: PortBox;
  /** Blend width in px inside the original across its left/right (x) and top/bottom (y) edges; 0 = hard edge. */
  feather: { x: number; y: number };
  seed: number;
  variant: number;
  preference: GenerationPreference;
}

/**
 * Time against quality: candidate source patches tried per patch, and the step of the grid the overlap error is
 * measured on (2 = a quarter of the overlap's pixels).
 */
const SEARCH: Record<GenerationPreference, { candidates: number; step: number }> = {
  fast: { candidates: 32, step: 2 },
  optimal: { candidates: 96, step: 2 },
  best: { candidates: 256, step: 2 },
};

/**
 * Patch side, px: a twelfth of the original's shorter side (so that a patch holds about as much of the scene at
 * any resolution), within 24..64, and never more than the original; the overlap is a quarter of it.
 */
const PATCH_SHARE = 1 / 12;
const PATCH_MIN = 24;
const PATCH_MAX = 64;
/** Originals with a side shorter than this hold no patch worth quilting: their nearest pixels extend them. */
const TINY = 4;
/** Fade, px, of the second, fine edge matching: short enough not to smear the edge's texture outward. */
const FINE_FADE = 2.5;
/** Share of the remaining step it closes: all of it would leave a line smoother than the image around it. */
const FINE_STRENGTH = 0.6;
/** The feather band is synthesised by the first ring's patches, which reach at most this far into the original. */
const MAX_FEATHER = 64;
/** Candidates drawn near the patch's own position along the edge (the rest anywhere in the band). */
const LOCAL_SHARE = 0.75;
/** Among candidates within this factor of the best error, one is picked at random (variety, no repeated tiles). */
const TOLERANCE = 1.15;
/** Weight, per sample, of the squared distance between a patch's mean colour and the guide's target there. */
const GUIDE_WEIGHT = 1;
/**
 * Cost per sample of each earlier use of the same source cell: spreads the picks over the band, so that one eye,
 * spoon or collar is not copied again and again along the edge.
 */
const REUSE_COST = 200;
/** How much more the guide weighs far from the original (times (1 - exp(-d / fade))^2). */
const GUIDE_GROWTH = 8;

/**
 * The canvas filled outside `inner` by texture synthesis from the original's border: rings of patches grow outward
 * from the original (left and right strips, then top and bottom strips spanning the corners), each patch quilted
 * from a band inside the original along the same edge (mostly near the same position, so that a horizon or a
 * table edge continues), chosen by its agreement with what is already filled (and with the colour and busyness
 * expected there: RingGrower.choose) and pasted with a minimum-error cut. Then the new area's large-scale colour is
 * set to continue the border's, fading to the band's mean with distance (colour-guide.ts, low-frequency.ts), and
 * the remaining step at the edges is closed (matchEdges). Inside `inner` the original's bytes are kept, except in
 * the feather band (at most 64 px: a wider feather is cut to 64), which blends towards the first ring's patches.
 * `preference` sets the candidates tried per patch (SEARCH). O(pixels * candidates * overlap / patch area).
 */
export function outpaintFill(input: OutpaintInput): Uint8Array {
  const { width, height, inner } = input;
  const canvas: QuiltCanvas = {
    data: Uint8Array.from(input.data),
    original: input.data,
    width,
    height,
    known: new Uint8Array(width * height),
    inner,
    feather: { x: 0, y: 0 },
  };
  if (inner.width <= 0 || inner.height <= 0) return canvas.data;
  for (let y = inner.top; y < inner.top + inner.height; y++)
    canvas.known.fill(1, y * width + inner.left, y * width + inner.left + inner.width);
  if (inner.width === width && inner.height === height) return canvas.data;

  const shorter = Math.min(inner.width, inner.height);
  if (shorter < TINY) return nearestFill(canvas.data, width, height, inner);
  const patch = Math.max(
    2,
    Math.min(shorter, Math.max(PATCH_MIN, Math.min(PATCH_MAX, Math.round(shorter * PATCH_SHARE)))),
  );
  const overlap = Math.max(1, Math.round(patch / 4));
  const stride = patch - overlap;
  // The first ring reaches into the original by the feather (at least the overlap, which it is matched on).
  const reach = {
    x: Math.max(overlap, Math.min(Math.round(input.feather.x), MAX_FEATHER, inner.width - stride)),
    y: Math.max(overlap, Math.min(Math.round(input.feather.y), MAX_FEATHER, inner.height - stride)),
  };
  canvas.feather = {
    x: Math.min(Math.round(input.feather.x), reach.x),
    y: Math.min(Math.round(input.feather.y), reach.y),
  };
  const stats = new OriginalStats(input.data, width, inner);
  const guide = new ColourGuide(stats, inner, patch, patch * 1.5);
  const random = seededRandom((input.seed * 31 + input.variant) >>> 0);
  const grower = new RingGrower(canvas, { patch, overlap, stride, ...SEARCH[input.preference] }, random, stats, guide);

  let known: PortBox = { ...inner };
  for (let ring = 0; ; ring++) {
    const next = expand(known, stride, width, height);
    if (next.width === known.width && next.height === known.height) break;
    grower.ring(known, next, ring === 0 ? reach : { x: overlap, y: overlap });
    known = next;
  }
  continueLowFrequency(canvas.data, width, height, inner, guide, patch);
  // Twice: a broad offset first (texture averaged out along the edge), then the last few pixels' own step
  // (only across hard edges: a feather band already blends there).
  matchEdges(canvas.data, width, height, inner, Math.max(1, patch >> 3), Math.max(1, patch / 3));
  const fine = { x: canvas.feather.x > 0 ? 0 : FINE_STRENGTH, y: canvas.feather.y > 0 ? 0 : FINE_STRENGTH };
  matchEdges(canvas.data, width, height, inner, 1, FINE_FADE, fine);
  return canvas.data;
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

function expand(box: PortBox, by: number, width: number, height: number): PortBox {
  const left = Math.max(0, box.left - by);
  const top = Math.max(0, box.top - by);
  const right = Math.min(width, box.left + box.width + by);
  const bottom = Math.min(height, box.top + box.height + by);
  return { left, top, width: right - left, height: bottom - top };
}

interface GrowSettings {
  patch: number;
  overlap: number;
  stride: number;
  candidates: number;
  step: number;
}

/** Fills one ring at a time; holds the random stream and the source bands. */
class RingGrower {
  private readonly target = new Float64Array(3);
  private readonly mean = new Float64Array(3);
  /** How often each cell of the original (patch / 2 px square) has been the centre of a pasted patch. */
  private readonly uses: Uint16Array;
  private readonly cell: number;
  private readonly columns: number;
  /** The band's typical luma deviation per side (typicalDeviation). */
  private readonly typical: Record<Side, number>;

  constructor(
    private readonly canvas: QuiltCanvas,
    private readonly settings: GrowSettings,
    private readonly random: () => number,
    private readonly stats: OriginalStats,
    private readonly guide: ColourGuide,
  ) {
    this.cell = Math.max(1, settings.patch >> 1);
    this.columns = Math.ceil(canvas.width / this.cell);
    this.uses = new Uint16Array(this.columns * Math.ceil(canvas.height / this.cell));
    this.typical = {
      left: this.typicalDeviation(true, 0),
      right: this.typicalDeviation(true, canvas.inner.width - settings.patch),
      top: this.typicalDeviation(false, 0),
      bottom: this.typicalDeviation(false, canvas.inner.height - settings.patch),
    };
  }

  /**
   * The median luma deviation of patch-sized windows of the original along one edge (`vertical`: a left or right
   * one, its windows at column `at`): how busy the band's typical texture is, an eye or a logo aside.
   */
  private typicalDeviation(vertical: boolean, at: number): number {
    const { inner } = this.canvas;
    const { patch } = this.settings;
    const span = (vertical ? inner.height : inner.width) - patch;
    const values: number[] = [];
    for (let along = 0; along <= span; along += Math.max(1, patch >> 1)) {
      values.push(
        vertical ? this.stats.deviation(at, along, patch, patch) : this.stats.deviation(along, at, patch, patch),
      );
    }
    values.sort((a, b) => a - b);
    return values[values.length >> 1] ?? 0;
  }

  private cellOf(x: number, y: number): number {
    return Math.floor(y / this.cell) * this.columns + Math.floor(x / this.cell);
  }

  /** Fills `next` minus `known`: left and right strips beside `known`, then top and bottom strips across `next`. */
  ring(known: PortBox, next: PortBox, reach: { x: number; y: number }): void {
    const knownRight = known.left + known.width;
    const knownBottom = known.top + known.height;
    const nextRight = next.left + next.width;
    const nextBottom = next.top + next.height;
    if (known.left > next.left)
      this.strip('left', next.left, known.left - next.left + reach.x, reach.x, known.top, knownBottom);
    if (nextRight > knownRight)
      this.strip('right', knownRight - reach.x, nextRight - knownRight + reach.x, reach.x, known.top, knownBottom);
    if (known.top > next.top)
      this.strip('top', next.top, known.top - next.top + reach.y, reach.y, next.left, nextRight);
    if (nextBottom > knownBottom)
      this.strip('bottom', knownBottom - reach.y, nextBottom - knownBottom + reach.y, reach.y, next.left, nextRight);
  }

  /**
   * One strip: patches `depth` deep from `at` across the strip (the `innerBand` of them on the known side), laid
   * from `from` to `to` along it, each overlapping the previous by the overlap.
   */
  private strip(side: Side, at: number, depth: number, innerBand: number, from: number, to: number): void {
    const { patch, overlap, stride } = this.settings;
    const vertical = side === 'left' || side === 'right';
    for (let start = from; start < to; start += stride) {
      const length = Math.min(patch, to - start);
      const previousBand = start > from ? Math.min(overlap, length) : 0;
      const place: PatchPlace = vertical
        ? { x: at, y: start, w: depth, h: length, side, innerBand, previousBand }
        : { x: start, y: at, w: length, h: depth, side, innerBand, previousBand };
      const [sx, sy] = this.choose(place);
      pastePatch(this.canvas, place, sx, sy);
      if (start + length >= to) break;
    }
  }

  /**
   * The best of the candidate source patches (within the tolerance, one at random), as its top-left corner. A
   * candidate's cost is its overlap error, plus a busyness term, (its luma deviation - the border's nearby)^2 per
   * sample, so that a patch whose overlap fits but which carries an object (a tower top, a face) into plain sky
   * loses, plus the guide's term (its mean colour's squared distance to the guide's target), which weighs more
   * with the distance from the original, so that an object cut by the edge ends.
   */
  private choose(place: PatchPlace): [number, number] {
    const { inner } = this.canvas;
    const { candidates, step } = this.settings;
    const vertical = place.side === 'left' || place.side === 'right';
    // The band the patches come from: along the same edge, deep enough for a few patches, nearer the edge likelier.
    const spanX = inner.width - place.w;
    const spanY = inner.height - place.h;
    const bandX = vertical ? Math.min(spanX, Math.max(place.w * 2, Math.round(inner.width * 0.15))) : spanX;
    const bandY = vertical ? spanY : Math.min(spanY, Math.max(place.h * 2, Math.round(inner.height * 0.15)));
    const nearness = this.guide.nearness(place.x + (place.w >> 1), place.y + (place.h >> 1));
    // Busy like the border next to the patch, like the band's typical texture far from it.
    const deviation = this.borderDeviation(place) * nearness + this.typical[place.side] * (1 - nearness);
    const target = this.guide.target(place.x + (place.w >> 1), place.y + (place.h >> 1), this.target);
    // Far from the original the guide outweighs the overlap, so that an object cut by the edge ends.
    const guideWeight = GUIDE_WEIGHT * (1 + GUIDE_GROWTH * (1 - nearness) ** 2);
    const found: Array<{ sx: number; sy: number; error: number }> = [];
    let best = Infinity;
    for (let k = 0; k < candidates; k++) {
      const depth = this.random() ** 2;
      let sx: number;
      let sy: number;
      if (vertical) {
        const across = Math.floor(depth * (bandX + 1));
        sx = place.side === 'left' ? inner.left + across : inner.left + spanX - across;
        sy = this.alongEdge(place.y, place.h, inner.top, spanY);
      } else {
        const across = Math.floor(depth * (bandY + 1));
        sy = place.side === 'top' ? inner.top + across : inner.top + spanY - across;
        sx = this.alongEdge(place.x, place.w, inner.left, spanX);
      }
      const { error: fit, samples } = overlapError(this.canvas, place, sx, sy, step);
      const busy = this.stats.deviation(sx - inner.left, sy - inner.top, place.w, place.h) - deviation;
      const mean = this.stats.mean(sx - inner.left, sy - inner.top, place.w, place.h, this.mean);
      const away = (mean[0] - target[0]) ** 2 + (mean[1] - target[1]) ** 2 + (mean[2] - target[2]) ** 2;
      const reuse = this.uses[this.cellOf(sx + (place.w >> 1), sy + (place.h >> 1))] * REUSE_COST;
      const error = fit + samples * (busy * busy * 3 + away * guideWeight + reuse);
      if (error <= best * TOLERANCE) found.push({ sx, sy, error });
      if (error < best) best = error;
    }
    const near = found.filter((c) => c.error <= best * TOLERANCE);
    const pick = near[Math.floor(this.random() * near.length)] ?? found[0];
    this.uses[this.cellOf(pick.sx + (place.w >> 1), pick.sy + (place.h >> 1))]++;
    return [pick.sx, pick.sy];
  }

  /** A position along the edge: mostly near the patch's own (the same stretch of the edge), else anywhere. */
  private alongEdge(at: number, size: number, origin: number, span: number): number {
    if (this.random() >= LOCAL_SHARE) return origin + Math.floor(this.random() * (span + 1));
    const jitter = (this.random() + this.random() - 1) * size * 4;
    return clamp(Math.round(at + jitter), origin, origin + span);
  }

  /**
   * The luma standard deviation of the original over a patch-sized window at its edge nearest `place`: how busy
   * the new area there should be (anchored to the border, so that busy patches cannot snowball ring after ring).
   */
  private borderDeviation(place: PatchPlace): number {
    const { inner } = this.canvas;
    const w = Math.min(place.w, inner.width);
    const h = Math.min(place.h, inner.height);
    const x = clamp(place.x, inner.left, inner.left + inner.width - w) - inner.left;
    const y = clamp(place.y, inner.top, inner.top + inner.height - h) - inner.top;
    return this.stats.deviation(x, y, w, h);
  }
}

function clamp(value: number, low: number, high: number): number {
  return value < low ? low : value > high ? high : value;
}
