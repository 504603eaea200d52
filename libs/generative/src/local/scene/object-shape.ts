import type { WorkGrid } from './work-grid';

/** Where the object is on the work grid (cells), and what the shadows need of its outline. */
export interface ObjectShape {
  /** False when the mask is empty: no shadow, no reflection. */
  present: boolean;
  left: number;
  right: number;
  top: number;
  /** The lowest row of the object: its base. */
  base: number;
  /** Per grid column: the object's lowest row there, -1 where the column is empty. */
  bottom: Int32Array;
  /** max(width, height) of its box, in cells (at least 1). */
  size: number;
  /** min(width, height) of its box, in cells (at least 1): how far a flat object stands off the floor, seen from above. */
  thickness: number;
  /** Share (0..1) of its occupied columns whose lowest row is within 2 % of its height of the base: 1 = flat. */
  flatBase: number;
  /**
   * The widest run of columns ending within 1 % of its height of the base, over its width 5 % of its height
   * above the base: about 1 for a pot, a box, a bottle, a shoe's sole; under 0.5 for a disc or a ball.
   */
  baseFlatness: number;
  /** Where it touches the floor (see {@link Footprint}). */
  footprint: Footprint;
}

/** A cell belongs to the object when at least half of it is covered. */
const COVERED = 0.5;

export function measureObject(grid: WorkGrid): ObjectShape {
  const { width, height } = grid;
  const alpha = grid.alpha.data;
  const bottom = new Int32Array(width).fill(-1);
  let left = width;
  let right = -1;
  let top = height;
  let base = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (alpha[y * width + x] < COVERED) continue;
      bottom[x] = y;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      base = y;
    }
  }
  if (base < 0)
    return {
      present: false,
      left: 0,
      right: 0,
      top: 0,
      base: 0,
      bottom,
      size: 1,
      thickness: 1,
      flatBase: 0,
      baseFlatness: 0,
      footprint: { left: 0, right: -1, columns: new Uint8Array(width) },
    };
  const size = Math.max(1, right - left + 1, base - top + 1);
  const thickness = Math.max(1, Math.min(right - left + 1, base - top + 1));
  const tolerance = (base - top + 1) * 0.02;
  let columns = 0;
  let flat = 0;
  for (let x = left; x <= right; x++) {
    if (bottom[x] < 0) continue;
    columns += 1;
    if (base - bottom[x] <= tolerance) flat += 1;
  }
  const baseFlatness = flatness(grid, bottom, left, right, top, base);
  const footprint = footprintOf(bottom, left, right, top, base);
  return {
    present: true,
    left,
    right,
    top,
    base,
    bottom,
    size,
    thickness,
    flatBase: flat / columns,
    baseFlatness,
    footprint,
  };
}

function flatness(grid: WorkGrid, bottom: Int32Array, left: number, right: number, top: number, base: number): number {
  const objectHeight = base - top + 1;
  const near = Math.max(1, objectHeight * 0.01);
  let run = 0;
  let widest = 0;
  for (let x = left; x <= right; x++) {
    run = bottom[x] >= 0 && base - bottom[x] <= near ? run + 1 : 0;
    widest = Math.max(widest, run);
  }
  const row = Math.max(top, base - Math.round(objectHeight * 0.05)) * grid.width;
  let from = -1;
  let to = -1;
  for (let x = left; x <= right; x++) {
    if (grid.alpha.data[row + x] < COVERED) continue;
    if (from < 0) from = x;
    to = x;
  }
  return from < 0 ? 0 : Math.min(1, widest / (to - from + 1));
}

/**
 * The view `auto` chooses. `front` (seen horizontally, the shadow thrown on a floor behind) when the object
 * stands on something (`standsOnBase`: bottles, boxes, mugs, bags, shoes, lamps, a potted plant; not a disc, a
 * ball or a ring, whose 30 % or 27 % of columns end near the lowest row on a curve, nor a stool on thin legs) and
 * that base lies in the lower 40 % of the canvas, where a floor would be. Otherwise `top` (seen from above, a soft shadow all around): round or irregular outlines (a watch, a
 * plate, a bag lying down) and objects placed high on the canvas.
 */
export function chooseView(shape: ObjectShape, gridHeight: number): 'top' | 'front' {
  if (!shape.present) return 'top';
  return standsOnBase(shape) && shape.base >= gridHeight * 0.6 ? 'front' : 'top';
}

/**
 * It stands on a base: at least 40 % of its columns end within 2 % of its height of its lowest row (a bottle, a
 * box), or its lowest rows are flat across at least 3/4 of its width just above them (a plant's pot under wider
 * leaves, a lamp's foot).
 */
export function standsOnBase(shape: ObjectShape): boolean {
  return shape.present && (shape.flatBase >= 0.4 || shape.baseFlatness >= 0.75);
}

/**
 * Where the object touches the floor: the columns whose lowest row is within 3 % of its height of its base (a
 * plant's pot, a bottle's bottom, a chair's feet; not the leaves or the seat above them), and their span.
 */
export interface Footprint {
  left: number;
  right: number;
  /** Per grid column: 1 where the object touches the floor there. */
  columns: Uint8Array;
}

function footprintOf(bottom: Int32Array, left: number, right: number, top: number, base: number): Footprint {
  const columns = new Uint8Array(bottom.length);
  const tolerance = Math.max(1, (base - top + 1) * 0.03);
  let from = right;
  let to = left;
  for (let x = left; x <= right; x++) {
    if (bottom[x] < 0 || base - bottom[x] > tolerance) continue;
    columns[x] = 1;
    if (x < from) from = x;
    if (x > to) to = x;
  }
  return { left: from, right: to, columns };
}
