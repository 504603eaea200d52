import type { RawPixels } from '../workers/raw-pixels';
import { fitPlate, type KernelPoint } from './plate-fit';

export interface PlateBlurPayload {
  /** 1 to 4 channels; the alpha channel (of 2 or 4) is left as it is. */
  image: RawPixels;
  /**
   * Candidate plates: the characters' box (corners top-left, top-right, bottom-right, bottom-left of the text;
   * its contrast is measured, and the plate fitted around it) and the text's height.
   */
  plates: { text: KernelPoint[]; height: number }[];
}

export interface PlateBlurResult {
  image: RawPixels;
  /** Per candidate: whether it was blurred (its text contrasted enough to be a plate's). */
  blurred: boolean[];
}

/**
 * A plate's characters are dark on light (or light on dark) with a strong contrast: between the 10th and 90th
 * percentile of the text box's luminance at least this much (0..255). Soft text (a reflection, a print on
 * fabric) is left alone.
 */
export const PLATE_MIN_CONTRAST = 60;

/**
 * A plate's characters stand on its surface, one colour: at least `share` of their box has that colour, and it
 * goes on beyond the box on at least `sides` of its four sides (plate-fit.ts; an EU plate's characters nearly
 * fill its height, so above and below them there may be the border at once). Text printed over a busy picture
 * fails one or the other.
 */
export const PLATE_SURFACE = { share: 0.4, sides: 2 } as const;

/**
 * The cell of the mosaic, as a fraction of the text's height: each cell averages the whole height of the line and
 * more than one character (about 0.6 of the height wide), so no stroke survives. Finer mosaics of text in a known
 * font can be undone by trying candidate strings until their mosaic matches; one cell per character height
 * leaves a mean colour per character and a half, which many strings share.
 */
export const MOSAIC_CELL = 1;

/**
 * Blurs every candidate whose text contrasts like a plate's and stands on a plate-like surface, with its plate
 * around it (plate-fit.ts), beyond
 * recognition: the area is averaged over
 * cells of MOSAIC_CELL text heights (the information a character's strokes held is gone: many images give the
 * same averages), and the cells' means are interpolated bilinearly between their centres, so no block edge is
 * left either. Only the pixels inside the area's quadrilateral change.
 */
export function plateBlurKernel({ image, plates }: PlateBlurPayload): PlateBlurResult {
  const blurred = plates.map((plate) => {
    if (contrast(image, plate.text) < PLATE_MIN_CONTRAST) return false;
    const fit = fitPlate(image, plate.text);
    if (fit.surfaceSides < PLATE_SURFACE.sides || fit.surfaceShare < PLATE_SURFACE.share) return false;
    obscure(image, fit.quad, Math.max(3, Math.round(plate.height * MOSAIC_CELL)));
    return true;
  });
  return { image, blurred };
}

interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The pixels whose centres can lie inside `quad`, within the image (x1, y1 exclusive). */
function bounds(quad: readonly KernelPoint[], width: number, height: number): Bounds {
  const xs = quad.map((p) => p.x);
  const ys = quad.map((p) => p.y);
  return {
    x0: Math.max(0, Math.floor(Math.min(...xs))),
    y0: Math.max(0, Math.floor(Math.min(...ys))),
    x1: Math.min(width, Math.ceil(Math.max(...xs)) + 1),
    y1: Math.min(height, Math.ceil(Math.max(...ys)) + 1),
  };
}

/** Whether the pixel centre (x + 0.5, y + 0.5) lies inside the convex quadrilateral (either winding). */
function inside(quad: readonly KernelPoint[], x: number, y: number): boolean {
  const px = x + 0.5;
  const py = y + 0.5;
  let sign = 0;
  for (let i = 0; i < quad.length; i++) {
    const a = quad[i];
    const b = quad[(i + 1) % quad.length];
    const cross = (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x);
    if (cross === 0) continue;
    const s = Math.sign(cross);
    if (sign === 0) sign = s;
    else if (s !== sign) return false;
  }
  return true;
}

function colourChannels(channels: number): number {
  return channels === 2 || channels === 4 ? channels - 1 : channels;
}

/** The 90th minus the 10th percentile of the luminance (Rec. 601) inside `quad`; 0 when it holds no pixel. */
function contrast(image: RawPixels, quad: readonly KernelPoint[]): number {
  const { data, width, height, channels } = image;
  const colour = colourChannels(channels);
  const histogram = new Uint32Array(256);
  let count = 0;
  const box = bounds(quad, width, height);
  for (let y = box.y0; y < box.y1; y++) {
    for (let x = box.x0; x < box.x1; x++) {
      if (!inside(quad, x, y)) continue;
      const at = (y * width + x) * channels;
      const luma = colour >= 3 ? 0.299 * data[at] + 0.587 * data[at + 1] + 0.114 * data[at + 2] : data[at];
      histogram[Math.round(luma)]++;
      count++;
    }
  }
  if (count === 0) return 0;
  const percentile = (share: number) => {
    let seen = 0;
    for (let value = 0; value < 256; value++) {
      seen += histogram[value];
      if (seen >= share * count) return value;
    }
    return 255;
  };
  return percentile(0.9) - percentile(0.1);
}

/** The area inside `quad` replaced by the bilinear interpolation of its `cell` x `cell` means. */
function obscure(image: RawPixels, quad: readonly KernelPoint[], cell: number): void {
  const { data, width, height, channels } = image;
  const colour = colourChannels(channels);
  const box = bounds(quad, width, height);
  const columns = Math.max(1, Math.ceil((box.x1 - box.x0) / cell));
  const rows = Math.max(1, Math.ceil((box.y1 - box.y0) / cell));
  // the means of every cell over the whole bounding box: the area's edge gets its neighbours' colours too,
  // which are the plate's own surroundings
  const means = new Float64Array(columns * rows * colour);
  const counts = new Uint32Array(columns * rows);
  for (let y = box.y0; y < box.y1; y++) {
    const row = Math.floor((y - box.y0) / cell);
    for (let x = box.x0; x < box.x1; x++) {
      const index = row * columns + Math.floor((x - box.x0) / cell);
      const at = (y * width + x) * channels;
      for (let c = 0; c < colour; c++) means[index * colour + c] += data[at + c];
      counts[index]++;
    }
  }
  for (let index = 0; index < counts.length; index++) {
    for (let c = 0; c < colour; c++) means[index * colour + c] /= Math.max(1, counts[index]);
  }
  for (let y = box.y0; y < box.y1; y++) {
    const fy = Math.min(Math.max((y - box.y0 + 0.5) / cell - 0.5, 0), rows - 1);
    const r0 = Math.floor(fy);
    const r1 = Math.min(r0 + 1, rows - 1);
    const wy = fy - r0;
    for (let x = box.x0; x < box.x1; x++) {
      if (!inside(quad, x, y)) continue;
      const fx = Math.min(Math.max((x - box.x0 + 0.5) / cell - 0.5, 0), columns - 1);
      const c0 = Math.floor(fx);
      const c1 = Math.min(c0 + 1, columns - 1);
      const wx = fx - c0;
      const at = (y * width + x) * channels;
      for (let c = 0; c < colour; c++) {
        const top = means[(r0 * columns + c0) * colour + c] * (1 - wx) + means[(r0 * columns + c1) * colour + c] * wx;
        const bottom =
          means[(r1 * columns + c0) * colour + c] * (1 - wx) + means[(r1 * columns + c1) * colour + c] * wx;
        data[at + c] = Math.round(top * (1 - wy) + bottom * wy);
      }
    }
  }
}
