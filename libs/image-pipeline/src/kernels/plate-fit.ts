import type { RawPixels } from '../workers/raw-pixels';

/** A point in pixels of the image. */
export interface KernelPoint {
  x: number;
  y: number;
}

/**
 * How far a plate may reach beyond its characters' box, in text heights, on each side: across the line (the
 * plate's margin above and below; a US plate's state name and slogan included) and along it (the EU band, the
 * margins at the ends). The fit never goes further; where no plate surface is found it takes `fallback`.
 */
export const PLATE_REACH = {
  across: 0.8,
  along: 1.2,
  fallback: { across: 0.3, along: 0.35 },
} as const;

/** A sampled line is the plate's surface while at least this share of its samples has the surface's colour. */
const SURFACE_SHARE = 0.5;
/** The RGB distance within which a sample has the surface's colour. */
const SURFACE_DISTANCE = 48;
/** What is added beyond the last line of surface: the plate's border and its anti-aliased edge. */
const BORDER = 0.12;

interface Frame {
  centre: KernelPoint;
  /** Unit vectors: along the text, and across it (towards the text's bottom). */
  u: KernelPoint;
  v: KernelPoint;
  length: number;
  height: number;
}

/** The frame of a text box given as corners top-left, top-right, bottom-right, bottom-left (plate-regions.ts). */
function frameOf([p0, p1, p2, p3]: readonly KernelPoint[]): Frame {
  const length = Math.hypot(p1.x - p0.x, p1.y - p0.y) || 1;
  const height = Math.hypot(p2.x - p1.x, p2.y - p1.y) || 1;
  return {
    centre: { x: (p0.x + p1.x + p2.x + p3.x) / 4, y: (p0.y + p1.y + p2.y + p3.y) / 4 },
    u: { x: (p1.x - p0.x) / length, y: (p1.y - p0.y) / length },
    v: { x: (p2.x - p1.x) / height, y: (p2.y - p1.y) / height },
    length,
    height,
  };
}

function sample(image: RawPixels, x: number, y: number): number {
  const { width, height, channels } = image;
  const px = Math.min(width - 1, Math.max(0, Math.round(x)));
  const py = Math.min(height - 1, Math.max(0, Math.round(y)));
  return (py * width + px) * channels;
}

/**
 * The plate surface's colour: the mean of the text box's brighter or darker 40%, whichever is the background;
 * and the share of the box's samples that have that colour (a plate's surface is one colour: most of its box).
 */
function surfaceColour(image: RawPixels, frame: Frame): { colour: number[]; share: number } | undefined {
  const { data, channels } = image;
  if (channels < 3) return undefined;
  const samples: number[][] = [];
  for (let i = 0; i <= 24; i++) {
    for (let j = 0; j <= 8; j++) {
      const a = (i / 24 - 0.5) * frame.length;
      const b = (j / 8 - 0.5) * frame.height;
      const at = sample(
        image,
        frame.centre.x + a * frame.u.x + b * frame.v.x,
        frame.centre.y + a * frame.u.y + b * frame.v.y,
      );
      samples.push([data[at], data[at + 1], data[at + 2]]);
    }
  }
  const luma = (c: number[]) => 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
  samples.sort((a, b) => luma(a) - luma(b));
  // characters are strokes, a minority of their box: the median sample lies on the surface, and the surface is
  // the 40% of samples at its end (light plates with dark characters, or the other way round)
  const lightSurface = luma(samples[samples.length >> 1]) > (luma(samples[0]) + luma(samples[samples.length - 1])) / 2;
  const share = Math.floor(samples.length * 0.4);
  const surface = lightSurface ? samples.slice(samples.length - share) : samples.slice(0, share);
  const colour = [0, 1, 2].map((c) => surface.reduce((sum, s) => sum + s[c], 0) / surface.length);
  const near = samples.filter(
    (s) => Math.hypot(s[0] - colour[0], s[1] - colour[1], s[2] - colour[2]) <= SURFACE_DISTANCE,
  );
  return { colour, share: near.length / samples.length };
}

/**
 * How far the surface of colour `surface` reaches from the text box's edge in direction `normal` (one of ±u, ±v),
 * in pixels: lines parallel to that edge, spanning `span` (the edge's length) less its ends, are sampled outwards
 * in steps from `inset` inside the edge; the reach ends at the last line of surface colour before one that is not
 * (after the first `grace`, where characters may still touch the line). Undefined when the first lines are not
 * surface: no plate around.
 */
function reach(
  image: RawPixels,
  start: KernelPoint,
  normal: KernelPoint,
  tangent: KernelPoint,
  span: number,
  limit: number,
  surface: number[],
  step: number,
  grace: number,
  inset: number,
): number | undefined {
  const { data } = image;
  let last: number | undefined;
  // from just inside the box: the detector's box already reaches onto the surface around the characters, and an
  // EU plate's characters fill it so that its border may lie right at the box's edge
  for (let d = -inset; d <= limit; d += step) {
    let match = 0;
    let total = 0;
    for (let k = 0; k <= 16; k++) {
      const t = (k / 16 - 0.5) * span * 0.8;
      const x = start.x + normal.x * d + tangent.x * t;
      const y = start.y + normal.y * d + tangent.y * t;
      if (x < 0 || y < 0 || x >= image.width || y >= image.height) continue;
      const at = sample(image, x, y);
      const distance = Math.hypot(data[at] - surface[0], data[at + 1] - surface[1], data[at + 2] - surface[2]);
      if (distance <= SURFACE_DISTANCE) match++;
      total++;
    }
    const onSurface = total > 0 && match >= SURFACE_SHARE * total;
    if (onSurface) last = d;
    else if (d > grace) break;
  }
  return last;
}

/** The plate fitted around a line of characters, and how much of a plate's surface was found around them. */
export interface PlateFit {
  quad: KernelPoint[];
  surfaceSides: number;
  /** The share of the characters' box that has the surface's colour (0 for a grey image). */
  surfaceShare: number;
}

/**
 * The plate around a line of characters (its box `text`, corners as plate-regions.ts gives them): from each of
 * the box's four edges outwards, as far as the plate's surface colour goes, plus its border (BORDER text heights),
 * at most PLATE_REACH; an edge with no surface beyond it takes the fallback margin. Text printed straight onto a
 * busy picture has no surface around it on most sides; a plate has one on all four.
 */
export function fitPlate(image: RawPixels, text: readonly KernelPoint[]): PlateFit {
  const frame = frameOf(text);
  const { centre, u, v, length, height } = frame;
  const surface = surfaceColour(image, frame);
  const step = Math.max(1, height / 30);
  const grace = 0.15 * height;
  let surfaceSides = 0;
  const side = (
    normal: KernelPoint,
    tangent: KernelPoint,
    half: number,
    span: number,
    limit: number,
    fallback: number,
  ) => {
    if (!surface) return fallback;
    const start = { x: centre.x + normal.x * half, y: centre.y + normal.y * half };
    const found = reach(image, start, normal, tangent, span, limit, surface.colour, step, grace, 0.1 * height);
    if (found === undefined) return fallback;
    surfaceSides++;
    return Math.min(limit, Math.max(0, found) + BORDER * height);
  };
  const neg = (p: KernelPoint) => ({ x: -p.x, y: -p.y });
  const { across, along, fallback } = PLATE_REACH;
  const top = side(neg(v), u, height / 2, length, across * height, fallback.across * height);
  const bottom = side(v, u, height / 2, length, across * height, fallback.across * height);
  const left = side(neg(u), v, length / 2, height, along * height, fallback.along * height);
  const right = side(u, v, length / 2, height, along * height, fallback.along * height);
  const at = (a: number, b: number) => ({
    x: centre.x + a * u.x + b * v.x,
    y: centre.y + a * u.y + b * v.y,
  });
  const quad = [
    at(-length / 2 - left, -height / 2 - top),
    at(length / 2 + right, -height / 2 - top),
    at(length / 2 + right, height / 2 + bottom),
    at(-length / 2 - left, height / 2 + bottom),
  ];
  return { quad, surfaceSides, surfaceShare: surface?.share ?? 0 };
}
