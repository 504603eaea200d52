import type { PortBox } from '@app/image-pipeline';
import { boxMean } from '@app/image-pipeline/planes';

/** Where fewer of the edge's pixels nearby than this share count (the rest are the object), no offset is added. */
const MIN_SHARE = 0.25;

/**
 * Closes what is left of the step at the original's edges: along each edge with new area beyond it, the
 * difference between the original's last pixel and the first new one, smoothed along the edge (two box means of
 * `radius`, so texture averages out and only an offset remains), is added to the new area, fading as
 * exp(-distance / fade) away from the edge (and from the edge's ends, for the corners). A cheap stand-in for a
 * gradient-domain (Poisson) blend across the seam. Where `exclude` marks the original's last pixel (the object),
 * its step does not count (the mean is over the other pixels): the fill beside an object cut by the edge must not
 * take on the object's colour.
 */
export function matchEdges(
  data: Uint8Array,
  width: number,
  height: number,
  inner: PortBox,
  radius: number,
  fade: number,
  exclude?: Uint8Array,
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
    const counted = new Float32Array(length);
    const at = (i: number) =>
      edge.vertical
        ? [edge.last, inner.top + i, edge.first, inner.top + i]
        : [inner.left + i, edge.last, inner.left + i, edge.first];
    for (let i = 0; i < length; i++) {
      const [lx, ly] = at(i);
      counted[i] = exclude && exclude[ly * width + lx] !== 0 ? 0 : 1;
    }
    const smooth = (values: Float32Array) =>
      boxMean(boxMean({ data: values, width: length, height: 1 }, radius), radius).data;
    const share = smooth(counted);
    for (let c = 0; c < 3; c++) {
      const step = new Float32Array(length);
      for (let i = 0; i < length; i++) {
        const [lx, ly, fx, fy] = at(i);
        step[i] = counted[i] * (data[(ly * width + lx) * 3 + c] - data[(fy * width + fx) * 3 + c]);
      }
      const mean = smooth(step);
      for (let i = 0; i < length; i++) mean[i] = share[i] > MIN_SHARE ? mean[i] / share[i] : 0;
      offsets.push(mean);
    }
    const outward = edge.first < edge.last ? -1 : 1;
    const start = edge.vertical ? inner.top : inner.left;
    const limit = edge.vertical ? height : width;
    for (let d = 0; d < reach; d++) {
      const across = edge.first + outward * d;
      if (across < 0 || across >= (edge.vertical ? width : height)) break;
      const fall = Math.exp(-d / fade);
      for (let along = Math.max(0, start - reach); along < Math.min(limit, start + length + reach); along++) {
        const i = Math.min(Math.max(along - start, 0), length - 1);
        const beyond = along < start ? start - along : along >= start + length ? along - start - length + 1 : 0;
        const weight = fall * Math.exp(-beyond / fade);
        const to = (edge.vertical ? along * width + across : across * width + along) * 3;
        for (let c = 0; c < 3; c++) {
          const value = data[to + c] + offsets[c][i] * weight;
          data[to + c] = value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
        }
      }
    }
  }
}
