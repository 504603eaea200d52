import type { PortBox } from '@app/image-pipeline';
import { boxMean } from '@app/image-pipeline/kernels/guided-filter';
import type { ColourGuide } from './colour-guide';

/**
 * Low-frequency colour continuity for an outpainted canvas. Patches carry texture and small structures, but a
 * patch quilted from elsewhere along the edge can be a little lighter or bluer than the border next to it, and
 * such differences add up across rings. So the new area's large-scale colour is replaced by the guide's target
 * (colour-guide.ts):
 *
 *   out(p) = synth(p) + target(p) - smooth(synth)(p)
 *
 * smooth: two box means of `radius` (close to a Gaussian). Both terms vary slowly, so the correction is computed
 * on cells of radius / 4 px (the canvas averaged per cell, smoothed with radius / cell) and interpolated
 * bilinearly between cell centres: O(pixels) with a small constant. The pixels of the original are not changed.
 */
export function continueLowFrequency(
  data: Uint8Array,
  width: number,
  height: number,
  inner: PortBox,
  guide: ColourGuide,
  radius: number,
): void {
  const cell = Math.max(1, Math.floor(radius / 4));
  const cols = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  const correction: Float32Array[] = [];
  const target = new Float64Array(3);
  const targets = new Float32Array(cols * rows * 3);
  for (let gy = 0; gy < rows; gy++) {
    for (let gx = 0; gx < cols; gx++) {
      guide.target(Math.min(width - 1, gx * cell + (cell >> 1)), Math.min(height - 1, gy * cell + (cell >> 1)), target);
      targets.set(target, (gy * cols + gx) * 3);
    }
  }
  for (let c = 0; c < 3; c++) {
    const means = cellMeans(data, width, height, c, cell, cols, rows);
    const smooth = boxMean(
      boxMean({ data: means, width: cols, height: rows }, Math.max(1, Math.round(radius / cell))),
      Math.max(1, Math.round(radius / cell)),
    ).data;
    const out = new Float32Array(cols * rows);
    for (let i = 0; i < out.length; i++) out[i] = targets[i * 3 + c] - smooth[i];
    correction.push(out);
  }
  const right = inner.left + inner.width;
  const bottom = inner.top + inner.height;
  for (let y = 0; y < height; y++) {
    const fy = Math.min(rows - 1, Math.max(0, (y - (cell >> 1)) / cell));
    const y0 = Math.floor(fy);
    const y1 = Math.min(rows - 1, y0 + 1);
    const ty = fy - y0;
    const insideY = y >= inner.top && y < bottom;
    for (let x = 0; x < width; x++) {
      if (insideY && x >= inner.left && x < right) continue;
      const fx = Math.min(cols - 1, Math.max(0, (x - (cell >> 1)) / cell));
      const x0 = Math.floor(fx);
      const x1 = Math.min(cols - 1, x0 + 1);
      const tx = fx - x0;
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const k = correction[c];
        const top = k[y0 * cols + x0] + (k[y0 * cols + x1] - k[y0 * cols + x0]) * tx;
        const low = k[y1 * cols + x0] + (k[y1 * cols + x1] - k[y1 * cols + x0]) * tx;
        const value = data[at + c] + top + (low - top) * ty;
        data[at + c] = value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
      }
    }
  }
}

/** Channel `c` of 3-channel `data` averaged over cells of `cell` x `cell` px (the last row and column partial). */
function cellMeans(
  data: Uint8Array,
  width: number,
  height: number,
  c: number,
  cell: number,
  cols: number,
  rows: number,
): Float32Array {
  const sums = new Float32Array(cols * rows);
  const counts = new Float32Array(cols * rows);
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / cell) * cols;
    for (let x = 0; x < width; x++) {
      const i = row + Math.floor(x / cell);
      sums[i] += data[(y * width + x) * 3 + c];
      counts[i]++;
    }
  }
  for (let i = 0; i < sums.length; i++) sums[i] /= counts[i];
  return sums;
}

/**
 * Closes what is left of the step at the original's edges: along each edge with new area beyond it, the
 * difference between the original's last pixel and the first new one, smoothed along the edge (two box means of
 * `radius`, so texture averages out and only an offset remains), times `strength` (x: the left and right
 * edges, y: the top and bottom ones), is added to the new area, fading as
 * exp(-distance / fade) away from the edge (and from the edge's ends, for the corners). A cheap stand-in for a
 * gradient-domain (Poisson) blend across the seam.
 */
export function matchEdges(
  data: Uint8Array,
  width: number,
  height: number,
  inner: PortBox,
  radius: number,
  fade: number,
  strength = { x: 1, y: 1 },
): void {
  const right = inner.left + inner.width;
  const bottom = inner.top + inner.height;
  const edges = [
    { present: inner.left > 0, vertical: true, last: inner.left, first: inner.left - 1 },
    { present: right < width, vertical: true, last: right - 1, first: right },
    { present: inner.top > 0, vertical: false, last: inner.top, first: inner.top - 1 },
    { present: bottom < height, vertical: false, last: bottom - 1, first: bottom },
  ];
  const reach = Math.ceil(fade * 5);
  for (const edge of edges) {
    if (!edge.present) continue;
    const length = edge.vertical ? inner.height : inner.width;
    const offsets: Float32Array[] = [];
    for (let c = 0; c < 3; c++) {
      const step = new Float32Array(length);
      for (let i = 0; i < length; i++) {
        const [lx, ly, fx, fy] = edge.vertical
          ? [edge.last, inner.top + i, edge.first, inner.top + i]
          : [inner.left + i, edge.last, inner.left + i, edge.first];
        step[i] = data[(ly * width + lx) * 3 + c] - data[(fy * width + fx) * 3 + c];
      }
      const plane = { data: step, width: length, height: 1 };
      offsets.push(boxMean(boxMean(plane, radius), radius).data);
    }
    const outward = edge.first < edge.last ? -1 : 1;
    const start = edge.vertical ? inner.top : inner.left;
    const limit = edge.vertical ? height : width;
    for (let d = 0; d < reach; d++) {
      const across = edge.first + outward * d;
      if (across < 0 || across >= (edge.vertical ? width : height)) break;
      const fall = (edge.vertical ? strength.x : strength.y) * Math.exp(-d / fade);
      for (let along = Math.max(0, start - reach); along < Math.min(limit, start + length + reach); along++) {
        const i = Math.min(Math.max(along - start, 0), length - 1);
        const beyond = along < start ? start - along : along >= start + length ? along - start - length + 1 : 0;
        const weight = fall * Math.exp(-beyond / fade);
        const at = (edge.vertical ? along * width + across : across * width + along) * 3;
        for (let c = 0; c < 3; c++) {
          const value = data[at + c] + offsets[c][i] * weight;
          data[at + c] = value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
        }
      }
    }
  }
}
