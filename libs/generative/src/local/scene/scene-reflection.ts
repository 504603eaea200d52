import { gaussianMean, type Plane } from '@app/image-pipeline/planes';
import type { ObjectShape } from './object-shape';
import type { WorkGrid } from './work-grid';

/**
 * The object mirrored on a glossy floor, on the work grid: in each column, the rows above the floor are flipped
 * below it (the floor is the column's lowest row where the object touches it, its base elsewhere: a leaf above a
 * pot is mirrored under the pot's base, not under itself), fading to nothing at 35 % of the object's height and blurring with distance (one blur
 * with `passes` 1, a tight and a wide one mixed by distance with 2). Planes: opacity 0..1 and the colour
 * premultiplied by it (0..255), to lay over the floor as `floor * (1 - a) + colour`.
 */
export interface Reflection {
  alpha: Plane;
  colour: [Plane, Plane, Plane];
}

export function reflectionPlanes(grid: WorkGrid, shape: ObjectShape, strength: number, passes: 1 | 2): Reflection {
  const { width, height } = grid;
  const planes = [0, 1, 2, 3].map(() => new Float32Array(width * height));
  const sources = [grid.alpha.data, ...grid.colour.map((plane) => plane.data)];
  const reach = Math.max(2, Math.round((shape.base - shape.top + 1) * 0.35));
  const distance = new Float32Array(width * height);
  const foot = shape.footprint;
  for (let x = shape.left; x <= shape.right && shape.present; x++) {
    if (shape.bottom[x] < 0) continue;
    const lowest = foot.columns[x] ? shape.bottom[x] : shape.base;
    for (let d = 1; d <= reach; d++) {
      const to = lowest + d;
      const from = lowest - d + 1;
      if (to >= height || from < 0) break;
      const fade = strength * (1 - d / reach) ** 1.6;
      for (let p = 0; p < 4; p++) planes[p][to * width + x] = sources[p][from * width + x] * fade;
      distance[to * width + x] = d / reach;
    }
  }
  const sigma = Math.max(0.8, shape.size * 0.01);
  const blurred = planes.map((data) => {
    const near = gaussianMean({ data, width, height }, sigma);
    if (passes === 1) return near;
    const far = gaussianMean({ data, width, height }, sigma * 4);
    for (let i = 0; i < near.data.length; i++) {
      const t = distance[i];
      near.data[i] = near.data[i] * (1 - t) + far.data[i] * t;
    }
    return near;
  });
  return { alpha: blurred[0], colour: [blurred[1], blurred[2], blurred[3]] };
}
