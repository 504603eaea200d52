import type { Point } from '../ports/segmenter.port';
import type { TextRegion } from '../ports/text-detector.port';

/**
 * Which text regions look like a car's number plate, by shape and place alone (the contrast is measured on the
 * pixels, in kernels/plate-blur.kernel.ts). A plate's characters form one short line: 5 to 9 characters about
 * 0.6 of their height wide, so the text's box is 1.8 to 8 times as long as high (EU 520 x 110 mm and US 12 x 6 in
 * plates alike), less under perspective. Text that fails: a single letter or a square logo (too short), a line of
 * words (too long), a line of a paragraph (a stacked neighbour of the same height too long to be a plate).
 */
export const PLATE_SHAPE = {
  minAspect: 1.8,
  maxAspect: 8,
  /** The text's height, in pixels of the image (smaller text cannot be read anyway) ... */
  minHeightPx: 6,
  /** ... and as a fraction of the image's shorter side (a plate filling the frame is a close-up, allowed). */
  maxHeightShare: 0.35,
  /** The box's longer side at most this share of the image's longer side. */
  maxLengthShare: 0.95,
} as const;

/**
 * A candidate plate: its characters' box (corners top-left, top-right, bottom-right, bottom-left of the text:
 * the plate is fitted around it on the pixels, kernels/plate-fit.ts) and the text's height.
 */
export interface PlateCandidate {
  text: Point[];
  height: number;
}

interface Frame {
  centre: Point;
  /** Unit vector along the text. */
  axis: Point;
  length: number;
  height: number;
}

function frame(points: readonly Point[]): Frame {
  const side = (a: Point, b: Point) => Math.hypot(b.x - a.x, b.y - a.y);
  const [p0, p1, p2] = points;
  const first = side(p0, p1);
  const second = side(p1, p2);
  const [from, to] = first >= second ? [p0, p1] : [p1, p2];
  const length = Math.max(first, second);
  const axis = length > 0 ? { x: (to.x - from.x) / length, y: (to.y - from.y) / length } : { x: 1, y: 0 };
  const centre = {
    x: points.reduce((sum, p) => sum + p.x, 0) / points.length,
    y: points.reduce((sum, p) => sum + p.y, 0) / points.length,
  };
  return { centre, axis, length, height: Math.min(first, second) };
}

function corners({ centre, axis, length, height }: Frame): Point[] {
  const u = { x: (axis.x * length) / 2, y: (axis.y * length) / 2 };
  const v = { x: (-axis.y * height) / 2, y: (axis.x * height) / 2 };
  return [
    { x: centre.x - u.x - v.x, y: centre.y - u.y - v.y },
    { x: centre.x + u.x - v.x, y: centre.y + u.y - v.y },
    { x: centre.x + u.x + v.x, y: centre.y + u.y + v.y },
    { x: centre.x - u.x + v.x, y: centre.y - u.y + v.y },
  ];
}

function plateShaped(box: Frame, image: { width: number; height: number }): boolean {
  const aspect = box.length / Math.max(box.height, 1e-6);
  return (
    aspect >= PLATE_SHAPE.minAspect &&
    aspect <= PLATE_SHAPE.maxAspect &&
    box.height >= PLATE_SHAPE.minHeightPx &&
    box.height <= PLATE_SHAPE.maxHeightShare * Math.min(image.width, image.height) &&
    box.length <= PLATE_SHAPE.maxLengthShare * Math.max(image.width, image.height)
  );
}

/**
 * Whether `other` is a line of the same text block as `box`: of a like height (a US plate's state name, a third
 * of its characters' height, is not), right above or below it (a gap of at most one line), overlapping it sideways.
 */
function stacked(box: Frame, other: Frame): boolean {
  // a piece of a line may hold lower-case letters only: its box is then about half as high as a full line's
  const ratio = other.height / box.height;
  if (ratio < 0.55 || ratio > 1.8) return false;
  const dx = other.centre.x - box.centre.x;
  const dy = other.centre.y - box.centre.y;
  // offsets across and along the box's text direction
  const across = Math.abs(-box.axis.y * dx + box.axis.x * dy);
  const along = Math.abs(box.axis.x * dx + box.axis.y * dy);
  const lineGap = across - (box.height + other.height) / 2;
  return across > 0.5 * box.height && lineGap <= box.height && along < (box.length + other.length) / 2;
}

/**
 * Whether `a` and `b` are pieces of one line of text: about as high, in the same direction, on the same line,
 * and at most one text height apart. The detector splits a line where its words are spaced widely (a plate's
 * "NP 2650" comes as "NP" and "2650"; a sentence in pieces of a few words).
 */
function sameLine(a: Frame, b: Frame): boolean {
  const ratio = b.height / a.height;
  if (ratio < 0.6 || ratio > 1.67) return false;
  if (Math.abs(a.axis.x * b.axis.y - a.axis.y * b.axis.x) > Math.sin((10 * Math.PI) / 180)) return false;
  const dx = b.centre.x - a.centre.x;
  const dy = b.centre.y - a.centre.y;
  const across = Math.abs(-a.axis.y * dx + a.axis.x * dy);
  const along = Math.abs(a.axis.x * dx + a.axis.y * dy);
  const height = Math.max(a.height, b.height);
  return across < 0.4 * height && along - (a.length + b.length) / 2 <= 1.0 * height;
}

/** The box around both, in the direction of the longer one. */
function joined(a: Frame, b: Frame): Frame {
  const main = a.length >= b.length ? a : b;
  const { axis } = main;
  const points = [...corners(a), ...corners(b)];
  const along = points.map((p) => p.x * axis.x + p.y * axis.y);
  const across = points.map((p) => -p.x * axis.y + p.y * axis.x);
  const [u0, u1] = [Math.min(...along), Math.max(...along)];
  const [v0, v1] = [Math.min(...across), Math.max(...across)];
  const u = (u0 + u1) / 2;
  const v = (v0 + v1) / 2;
  return {
    centre: { x: u * axis.x - v * axis.y, y: u * axis.y + v * axis.x },
    axis,
    length: u1 - u0,
    // the line's height, not the spread of two slightly offset pieces
    height: Math.max(a.height, b.height),
  };
}

/**
 * The detected pieces joined into lines: pieces on one line (sameLine, directly or through other pieces) form
 * one line. One pass over the pairs (union-find), so that an image full of text (a document, up to the
 * detector's 1000 regions) costs milliseconds on the event loop, not a search repeated after every join.
 */
function textLines(boxes: Frame[]): Frame[] {
  const parent = boxes.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      if (sameLine(boxes[i], boxes[j])) parent[root(j)] = root(i);
    }
  }
  const lines = new Map<number, Frame>();
  boxes.forEach((box, i) => {
    const line = lines.get(root(i));
    lines.set(root(i), line ? joined(line, box) : box);
  });
  return [...lines.values()];
}

/**
 * The lines of text among `regions` (in pixels of an image of `image` size) shaped and placed like a plate's
 * characters: the pieces of each line joined first. A line is dropped when a stacked neighbour of the same
 * height is too long to be a plate (a paragraph's short last line); two short stacked lines (a two-line
 * motorcycle plate) are kept.
 */
export function plateCandidates(
  regions: readonly TextRegion[],
  image: { width: number; height: number },
): PlateCandidate[] {
  const boxes = textLines(regions.map((region) => frame(region.points)));
  const candidates: PlateCandidate[] = [];
  boxes.forEach((box, index) => {
    if (!plateShaped(box, image)) return;
    const inParagraph = boxes.some(
      (other, at) => at !== index && other.length / other.height > PLATE_SHAPE.maxAspect && stacked(box, other),
    );
    if (inParagraph) return;
    candidates.push({ text: corners(box), height: box.height });
  });
  return candidates;
}

/** `candidate` in the pixels of an image `scale` times as large. */
export function scaledCandidate(candidate: PlateCandidate, scale: { x: number; y: number }): PlateCandidate {
  const at = (p: Point) => ({ x: p.x * scale.x, y: p.y * scale.y });
  return {
    text: candidate.text.map(at),
    height: candidate.height * Math.min(scale.x, scale.y),
  };
}
