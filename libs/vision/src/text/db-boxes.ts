import { flood8 } from '@app/image-pipeline/planes';

/**
 * Text boxes from a DB detector's probability map, after PaddleOCR's DBPostProcess (written here from its
 * description, not copied): the map thresholded; each connected region of text pixels enclosed by its
 * minimum-area rectangle; rectangles too thin or whose mean probability is low dropped; the rest grown by the
 * "unclip" distance (area x ratio / perimeter: the detector's maps shrink text by about that much in training),
 * then scaled to the source image.
 */

export interface DbOptions {
  /** A map value above this is text (PaddleOCR's `thresh`, 0.3). */
  threshold: number;
  /** Least mean probability inside a box (`box_thresh`, 0.6). */
  boxThreshold: number;
  /** How much a box grows (`unclip_ratio`, 1.5 for PP-OCRv4). */
  unclipRatio: number;
  /** At most this many regions are looked at, largest first (`max_candidates`, 1000). */
  maxCandidates: number;
}

export const DB_DEFAULTS: DbOptions = { threshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5, maxCandidates: 1000 };

/** Thinner rectangles are noise (PaddleOCR's `min_size`, 3; 5 after the unclip). */
const MIN_SIDE = 3;

export type Vec = [number, number];

/** A rectangle as four corners clockwise on screen from the top-left one, with its score. */
export interface DbBox {
  points: [Vec, Vec, Vec, Vec];
  score: number;
}

interface Rect {
  centre: Vec;
  /** Unit vector along the first side; the second side is perpendicular to it. */
  axis: Vec;
  /** Lengths along `axis` and across it. */
  along: number;
  across: number;
}

/**
 * The boxes of the text in `map` (`width` x `height`, row-major probabilities 0..1), in the coordinates of a
 * source image of `source` size (the map covers it wholly, each axis scaled on its own).
 */
export function dbBoxes(
  map: Float32Array,
  width: number,
  height: number,
  source: { width: number; height: number },
  options: DbOptions = DB_DEFAULTS,
): DbBox[] {
  const { labels, regions } = components(map, width, height, options.threshold);
  regions.sort((a, b) => b.size - a.size);
  const sx = source.width / width;
  const sy = source.height / height;
  const boxes: DbBox[] = [];
  for (const region of regions.slice(0, options.maxCandidates)) {
    const rect = minAreaRect(hull(region.edges));
    if (Math.min(rect.along, rect.across) < MIN_SIDE) continue;
    const score = meanInside(map, width, height, corners(rect), labels, region.label);
    if (score < options.boxThreshold) continue;
    const grown = unclip(rect, options.unclipRatio);
    if (Math.min(grown.along, grown.across) < MIN_SIDE + 2) continue;
    const points = corners(grown).map(([x, y]): Vec => [
      clamp(x * sx, 0, source.width),
      clamp(y * sy, 0, source.height),
    ]);
    boxes.push({ points: clockwiseFromTopLeft(points), score });
  }
  return boxes;
}

interface Region {
  label: number;
  size: number;
  /** The leftmost and rightmost pixel centre of each row: all the convex hull needs. */
  edges: Vec[];
}

/** 8-connected regions of map > threshold, by flood fill; `labels` holds each pixel's region (0: none). */
function components(
  map: Float32Array,
  width: number,
  height: number,
  threshold: number,
): { labels: Int32Array; regions: Region[] } {
  const labels = new Int32Array(width * height);
  const regions: Region[] = [];
  const stack = new Int32Array(width * height);
  for (let start = 0; start < map.length; start++) {
    if (labels[start] !== 0 || !(map[start] > threshold)) continue;
    const label = regions.length + 1;
    const rowMin = new Map<number, number>();
    const rowMax = new Map<number, number>();
    let size = 0;
    const visit = (index: number) => {
      const x = index % width;
      const y = (index - x) / width;
      size++;
      if (!(rowMin.get(y)! <= x)) rowMin.set(y, x);
      if (!(rowMax.get(y)! >= x)) rowMax.set(y, x);
    };
    labels[start] = label;
    visit(start);
    stack[0] = start;
    flood8(stack, 1, width, height, (next) => {
      if (labels[next] !== 0 || !(map[next] > threshold)) return false;
      labels[next] = label;
      visit(next);
      return true;
    });
    const edges: Vec[] = [];
    for (const [y, x] of rowMin) edges.push([x, y], [rowMax.get(y)!, y]);
    regions.push({ label, size, edges });
  }
  return { labels, regions };
}

/** Convex hull (monotone chain), counter-clockwise in maths axes. */
function hull(points: Vec[]): Vec[] {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (sorted.length < 3) return sorted;
  const cross = (o: Vec, a: Vec, b: Vec) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Vec[] = [];
  for (const p of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Vec[] = [];
  for (let i = sorted.length - 1; i >= 0; i--) {
    const p = sorted[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/** The smallest rectangle around the hull: one of its sides lies on a hull edge (rotating calipers). */
function minAreaRect(points: Vec[]): Rect {
  let best: Rect | undefined;
  let bestArea = Infinity;
  const n = points.length;
  for (let i = 0; i < Math.max(n, 1); i++) {
    const a = points[i];
    const b = points[(i + 1) % n];
    let ux = b[0] - a[0];
    let uy = b[1] - a[1];
    const length = Math.hypot(ux, uy);
    if (length === 0) {
      ux = 1;
      uy = 0;
    } else {
      ux /= length;
      uy /= length;
    }
    let minU = Infinity;
    let maxU = -Infinity;
    let minV = Infinity;
    let maxV = -Infinity;
    for (const [x, y] of points) {
      const u = x * ux + y * uy;
      const v = -x * uy + y * ux;
      minU = Math.min(minU, u);
      maxU = Math.max(maxU, u);
      minV = Math.min(minV, v);
      maxV = Math.max(maxV, v);
    }
    const area = (maxU - minU) * (maxV - minV);
    if (area < bestArea) {
      bestArea = area;
      const cu = (minU + maxU) / 2;
      const cv = (minV + maxV) / 2;
      best = {
        centre: [cu * ux - cv * uy, cu * uy + cv * ux],
        axis: [ux, uy],
        along: maxU - minU,
        across: maxV - minV,
      };
    }
  }
  return best!;
}

function corners({ centre, axis, along, across }: Rect): Vec[] {
  const [cx, cy] = centre;
  const [ux, uy] = axis;
  const hu = along / 2;
  const hv = across / 2;
  return [
    [cx - ux * hu + uy * hv, cy - uy * hu - ux * hv],
    [cx + ux * hu + uy * hv, cy + uy * hu - ux * hv],
    [cx + ux * hu - uy * hv, cy + uy * hu + ux * hv],
    [cx - ux * hu - uy * hv, cy - uy * hu + ux * hv],
  ];
}

/**
 * The rectangle offset outwards by area x ratio / perimeter on every side: what a polygon offset of the
 * rectangle gives, enclosed again by its minimum rectangle.
 */
function unclip(rect: Rect, ratio: number): Rect {
  const distance = (rect.along * rect.across * ratio) / (2 * (rect.along + rect.across));
  return { ...rect, along: rect.along + 2 * distance, across: rect.across + 2 * distance };
}

/**
 * The mean probability over the map pixels inside the rectangle (PaddleOCR's "fast" box score), pixels of other
 * text regions left out so that a neighbouring line does not raise a weak box's score.
 */
function meanInside(
  map: Float32Array,
  width: number,
  height: number,
  quad: Vec[],
  labels: Int32Array,
  label: number,
): number {
  const xs = quad.map((p) => p[0]);
  const ys = quad.map((p) => p[1]);
  const x0 = clamp(Math.floor(Math.min(...xs)), 0, width - 1);
  const x1 = clamp(Math.ceil(Math.max(...xs)), 0, width - 1);
  const y0 = clamp(Math.floor(Math.min(...ys)), 0, height - 1);
  const y1 = clamp(Math.ceil(Math.max(...ys)), 0, height - 1);
  let sum = 0;
  let count = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!insideConvex(quad, x, y)) continue;
      const index = y * width + x;
      const other = labels[index] !== 0 && labels[index] !== label;
      sum += other ? 0 : map[index];
      count++;
    }
  }
  return count === 0 ? 0 : sum / count;
}

/** Whether (x, y) lies inside or on the convex polygon (either winding). */
export function insideConvex(polygon: readonly Vec[], x: number, y: number): boolean {
  let sign = 0;
  for (let i = 0; i < polygon.length; i++) {
    const [ax, ay] = polygon[i];
    const [bx, by] = polygon[(i + 1) % polygon.length];
    const cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
    if (Math.abs(cross) < 1e-9) continue;
    const s = Math.sign(cross);
    if (sign === 0) sign = s;
    else if (s !== sign) return false;
  }
  return true;
}

/** The corners in clockwise order on screen (y down), starting from the one nearest the top-left. */
function clockwiseFromTopLeft(points: Vec[]): [Vec, Vec, Vec, Vec] {
  const cx = points.reduce((sum, p) => sum + p[0], 0) / points.length;
  const cy = points.reduce((sum, p) => sum + p[1], 0) / points.length;
  const ordered = [...points].sort((a, b) => Math.atan2(a[1] - cy, a[0] - cx) - Math.atan2(b[1] - cy, b[0] - cx));
  let first = 0;
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i][0] + ordered[i][1] < ordered[first][0] + ordered[first][1]) first = i;
  }
  return [0, 1, 2, 3].map((k) => ordered[(first + k) % 4]) as [Vec, Vec, Vec, Vec];
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
