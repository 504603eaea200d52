import type { Plane } from '@app/image-pipeline/planes';

/**
 * The reduced grid on which the soft parts of a scene (shadows, reflections) are computed: blurred planes carry
 * no detail finer than their blur, so working at about 1/4 of a megapixel canvas costs a sixteenth and looks the
 * same once bilinearly enlarged. A grid cell covers `factor` x `factor` canvas pixels.
 */
export interface WorkGrid {
  width: number;
  height: number;
  factor: number;
  /** The object's alpha, 0..1, averaged per cell. */
  alpha: Plane;
  /** The object's colour premultiplied by its alpha, per cell, 0..255: r, g, b planes. */
  colour: [Plane, Plane, Plane];
}

/** The grid for a canvas, with at most about `longSide` cells along its longer side. */
export function workGrid(object: Uint8Array, width: number, height: number, longSide: number): WorkGrid {
  const factor = Math.max(1, Math.ceil(Math.max(width, height) / longSide));
  const gw = Math.ceil(width / factor);
  const gh = Math.ceil(height / factor);
  const a = new Float32Array(gw * gh);
  const r = new Float32Array(gw * gh);
  const g = new Float32Array(gw * gh);
  const b = new Float32Array(gw * gh);
  const count = new Float32Array(gw * gh);
  for (let y = 0; y < height; y++) {
    const row = ((y / factor) | 0) * gw;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const alpha = object[i + 3] / 255;
      const cell = row + ((x / factor) | 0);
      count[cell] += 1;
      if (alpha === 0) continue;
      a[cell] += alpha;
      r[cell] += object[i] * alpha;
      g[cell] += object[i + 1] * alpha;
      b[cell] += object[i + 2] * alpha;
    }
  }
  for (let i = 0; i < a.length; i++) {
    const inverse = 1 / count[i];
    a[i] *= inverse;
    r[i] *= inverse;
    g[i] *= inverse;
    b[i] *= inverse;
  }
  const plane = (data: Float32Array): Plane => ({ data, width: gw, height: gh });
  return { width: gw, height: gh, factor, alpha: plane(a), colour: [plane(r), plane(g), plane(b)] };
}

/** Per canvas column (or row): the two grid cells to read and the weight of the second (bilinear enlargement). */
export interface Axis {
  lower: Int32Array;
  upper: Int32Array;
  weight: Float32Array;
}

export function enlargeAxis(size: number, cells: number, factor: number): Axis {
  const lower = new Int32Array(size);
  const upper = new Int32Array(size);
  const weight = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    const at = Math.min(cells - 1, Math.max(0, (i + 0.5) / factor - 0.5));
    lower[i] = Math.floor(at);
    upper[i] = Math.min(cells - 1, lower[i] + 1);
    weight[i] = at - lower[i];
  }
  return { lower, upper, weight };
}

/** A grid plane enlarged to the canvas (bilinear), written into `out` (canvas size). */
export function enlarge(plane: Plane, across: Axis, down: Axis, out: Float32Array): Float32Array {
  const { data, width } = plane;
  const canvasWidth = across.lower.length;
  for (let y = 0; y < down.lower.length; y++) {
    const r0 = down.lower[y] * width;
    const r1 = down.upper[y] * width;
    const wy = down.weight[y];
    const at = y * canvasWidth;
    for (let x = 0; x < canvasWidth; x++) {
      const x0 = across.lower[x];
      const x1 = across.upper[x];
      const wx = across.weight[x];
      const top = data[r0 + x0] + (data[r0 + x1] - data[r0 + x0]) * wx;
      const bottom = data[r1 + x0] + (data[r1 + x1] - data[r1 + x0]) * wx;
      out[at + x] = top + (bottom - top) * wy;
    }
  }
  return out;
}
