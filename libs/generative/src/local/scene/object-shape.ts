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
    return { present: false, left: 0, right: 0, top: 0, base: 0, bottom, size: 1, thickness: 1, flatBase: 0 };
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
  return { present: true, left, right, top, base, bottom, size, thickness, flatBase: flat / columns };
}

/**
 * The view `auto` chooses. `front` (seen horizontally, the shadow thrown on a floor behind) when the object
 * stands on something: its outline ends in a flat base (at least 40 % of its columns end within 2 % of its height
 * of its lowest row: bottles, boxes, mugs, bags, shoes, lamps; a disc's or a ball's are about 30 %, a ring's 27 %,
 * a stool's on legs 10 %) and that base lies in the lower 40 % of the canvas, where a floor
 * would be. Otherwise `top` (seen from above, a soft shadow all around): round or irregular outlines (a watch, a
 * plate, a bag lying down) and objects placed high on the canvas.
 */
export function chooseView(shape: ObjectShape, gridHeight: number): 'top' | 'front' {
  if (!shape.present) return 'top';
  return shape.flatBase >= 0.4 && shape.base >= gridHeight * 0.6 ? 'front' : 'top';
}
