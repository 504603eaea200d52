import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { random as seeded } from '../fixtures/seeded-random.mjs';

/**
 * The labelled set of the plate blur, built by code: plate-like objects (a white or yellow rectangle with a dark
 * border and a registration in a monospace bold font, EU or US proportions) drawn with a random size, rotation
 * and shear (a slight perspective) over photos (test/fixtures/plate-backgrounds, licences in LICENSES.md), next to
 * text that is not a plate: a long line, a paragraph, a single big letter. The truth is the plates' polygons as
 * drawn. Seeded: the same set every run.
 */

const BACKGROUNDS = ['coffee', 'astronaut', 'chelsea', 'rocket', 'brick', 'grass', 'gravel'].map((name) =>
  readFileSync(join(__dirname, `../fixtures/plate-backgrounds/${name}.jpg`)),
);
/** DejaVu Sans Mono: every glyph advances 0.602 em; capitals and digits stand 0.73 em high. */
const MONO_ADVANCE = 0.602;
const CAP_HEIGHT = 0.73;
const FONT = 'font-family="DejaVu Sans Mono" font-weight="bold"';

export interface Point {
  x: number;
  y: number;
}

export interface PlateScene {
  png: Buffer;
  width: number;
  height: number;
  /** Each plate's outline (the whole plate, border included), as drawn. */
  plates: Point[][];
  /** Each plate's characters' box, as drawn (where the readable detail is). */
  texts: Point[][];
  /** 1 per pixel inside a plate, else 0. */
  truth: Uint8Array;
  /** What else was drawn, for messages. */
  distractors: string[];
}

type Matrix = [number, number, number, number, number, number];

function apply([a, b, c, d, e, f]: Matrix, { x, y }: Point): Point {
  return { x: a * x + c * y + e, y: b * x + d * y + f };
}

/** translate(cx, cy) . rotate(degrees) . skewX(shear degrees) . scale(1, sy), as one SVG matrix. */
function placement(cx: number, cy: number, degrees: number, shear: number, sy: number): Matrix {
  const r = (degrees * Math.PI) / 180;
  const k = Math.tan((shear * Math.PI) / 180);
  const [cos, sin] = [Math.cos(r), Math.sin(r)];
  // R . K . S with K = [[1, k], [0, 1]], S = diag(1, sy)
  return [cos, sin, (cos * k - sin) * sy, (sin * k + cos) * sy, cx, cy];
}

function rectangle(width: number, height: number): Point[] {
  const [w, h] = [width / 2, height / 2];
  return [
    { x: -w, y: -h },
    { x: w, y: -h },
    { x: w, y: h },
    { x: -w, y: h },
  ];
}

const LETTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ';
const DIGITS = '0123456789';
const WORDS = 'the quick brown fox jumps over a lazy dog while seven wizards quietly box jolly nymphs at dawn'.split(
  ' ',
);

function registration(random: () => number, kind: 'eu' | 'us'): string {
  const pick = (set: string) => set[Math.floor(random() * set.length)];
  const many = (set: string, n: number) => Array.from({ length: n }, () => pick(set)).join('');
  if (kind === 'us')
    return random() < 0.5
      ? `${pick(DIGITS)}${many(LETTERS, 3)}${many(DIGITS, 3)}`
      : `${many(LETTERS, 3)} ${many(DIGITS, 4)}`;
  return random() < 0.5
    ? `${many(LETTERS, 2)}-${many(DIGITS, 3)}-${many(LETTERS, 2)}`
    : `${many(LETTERS, 2)} ${many(DIGITS, 4)}`;
}

function sentence(random: () => number, characters: number): string {
  let text = '';
  while (text.length < characters) text += `${text ? ' ' : ''}${WORDS[Math.floor(random() * WORDS.length)]}`;
  return text.slice(0, characters).trim();
}

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

function boundsOf(points: Point[], margin: number): Box {
  return {
    left: Math.min(...points.map((p) => p.x)) - margin,
    top: Math.min(...points.map((p) => p.y)) - margin,
    right: Math.max(...points.map((p) => p.x)) + margin,
    bottom: Math.max(...points.map((p) => p.y)) + margin,
  };
}

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/**
 * Scene `index` of the set: 1 or 2 plates and 1 to 3 texts that are not plates, over a photo; with `plates`
 * false, the other texts only.
 */
export async function plateScene(index: number, { plates: withPlates = true } = {}): Promise<PlateScene> {
  const random = seeded(1000 + index);
  const sizes = [
    [960, 720],
    [1280, 960],
    [800, 600],
    [1600, 1067],
    [2400, 1600],
  ];
  const [width, height] = sizes[index % sizes.length];
  const taken: Box[] = [];
  const svg: string[] = [];
  const plates: Point[][] = [];
  const texts: Point[][] = [];
  const distractors: string[] = [];
  /** A centre where a shape of `points` (around the origin) fits without touching what is drawn. */
  const place = (points: Point[], matrixAt: (cx: number, cy: number) => Matrix): Matrix | undefined => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const matrix = matrixAt(width * (0.1 + 0.8 * random()), height * (0.1 + 0.8 * random()));
      const drawn = points.map((p) => apply(matrix, p));
      const box = boundsOf(drawn, 12);
      if (box.left < 0 || box.top < 0 || box.right > width || box.bottom > height) continue;
      if (taken.some((other) => overlaps(box, other))) continue;
      taken.push(box);
      return matrix;
    }
    return undefined;
  };

  const plateCount = withPlates ? 1 + (random() < 0.4 ? 1 : 0) : 0;
  for (let n = 0; n < plateCount; n++) {
    const kind = random() < 0.6 ? 'eu' : 'us';
    const plateWidth = width * (kind === 'eu' ? 0.14 + 0.14 * random() : 0.1 + 0.08 * random());
    const plateHeight = plateWidth / (kind === 'eu' ? 4.7 : 2);
    const text = registration(random, kind);
    // the characters: 0.7 of an EU plate's height, 0.45 of a US plate's, and at most 0.86 of its width
    const fontSize = Math.min(
      (plateHeight * (kind === 'eu' ? 0.7 : 0.45)) / CAP_HEIGHT,
      (plateWidth * 0.86) / (text.length * MONO_ADVANCE),
    );
    const outline = rectangle(plateWidth, plateHeight);
    const matrix = place(outline, (cx, cy) =>
      placement(cx, cy, (random() - 0.5) * 16, (random() - 0.5) * 24, 0.85 + 0.15 * random()),
    );
    if (!matrix) continue;
    const fill = kind === 'eu' && random() < 0.4 ? '#f2c500' : '#f7f7f2';
    const border = Math.max(2, plateHeight * 0.05);
    const textWidth = text.length * MONO_ADVANCE * fontSize;
    const baseline = kind === 'us' ? plateHeight * 0.2 : (CAP_HEIGHT * fontSize) / 2;
    svg.push(
      `<g transform="matrix(${matrix.join(' ')})">`,
      `<rect x="${-plateWidth / 2}" y="${-plateHeight / 2}" width="${plateWidth}" height="${plateHeight}" rx="${border}" fill="${fill}" stroke="#1a1a1a" stroke-width="${border}"/>`,
      kind === 'us'
        ? `<text x="0" y="${-plateHeight * 0.3}" ${FONT} font-size="${plateHeight * 0.13}" text-anchor="middle" fill="#8a1c1c">CALIFORNIA</text>`
        : '',
      `<text x="0" y="${baseline}" ${FONT} font-size="${fontSize}" text-anchor="middle" fill="#111">${text}</text>`,
      '</g>',
    );
    plates.push(outline.map((p) => apply(matrix, p)));
    const capTop = baseline - CAP_HEIGHT * fontSize;
    texts.push(
      [
        { x: -textWidth / 2, y: capTop },
        { x: textWidth / 2, y: capTop },
        { x: textWidth / 2, y: baseline },
        { x: -textWidth / 2, y: baseline },
      ].map((p) => apply(matrix, p)),
    );
  }

  const distractorCount = withPlates ? 1 + Math.floor(random() * 3) : 3;
  for (let n = 0; n < distractorCount; n++) {
    const kind = (['line', 'paragraph', 'letter'] as const)[Math.floor(random() * 3)];
    const backed = random() < 0.5;
    const colour = backed ? '#151515' : random() < 0.5 ? '#101010' : '#fafafa';
    let lines: string[];
    let size: number;
    if (kind === 'letter') {
      lines = [LETTERS[Math.floor(random() * LETTERS.length)]];
      size = height * (0.12 + 0.12 * random());
    } else if (kind === 'line') {
      lines = [sentence(random, 36 + Math.floor(random() * 20))];
      size = Math.min(height * (0.025 + 0.02 * random()), (width * 0.8) / (lines[0].length * MONO_ADVANCE));
    } else {
      const count = 3 + Math.floor(random() * 3);
      lines = Array.from({ length: count }, (_, i) =>
        sentence(random, i === count - 1 ? 8 + Math.floor(random() * 16) : 32 + Math.floor(random() * 10)),
      );
      size = Math.min(height * (0.02 + 0.015 * random()), (width * 0.6) / (42 * MONO_ADVANCE));
    }
    const leading = size * 1.3;
    const blockWidth = Math.max(...lines.map((line) => line.length)) * MONO_ADVANCE * size + size;
    const blockHeight = lines.length * leading + size * 0.5;
    const outline = rectangle(blockWidth, blockHeight);
    const matrix = place(outline, (cx, cy) => placement(cx, cy, (random() - 0.5) * 6, 0, 1));
    if (!matrix) continue;
    distractors.push(kind);
    svg.push(`<g transform="matrix(${matrix.join(' ')})">`);
    if (backed) {
      svg.push(
        `<rect x="${-blockWidth / 2}" y="${-blockHeight / 2}" width="${blockWidth}" height="${blockHeight}" fill="#f4f1e8"/>`,
      );
    }
    lines.forEach((line, i) => {
      const y = -blockHeight / 2 + size * 0.25 + (i + 1) * leading - (leading - CAP_HEIGHT * size) / 2;
      svg.push(
        `<text x="${-blockWidth / 2 + size / 2}" y="${y}" ${FONT.replace('bold', 'normal')} font-size="${size}" fill="${colour}">${escape(line)}</text>`,
      );
    });
    svg.push('</g>');
  }

  const overlay = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${svg.join('')}</svg>`,
  );
  const background = BACKGROUNDS[index % BACKGROUNDS.length];
  const png = await sharp(background)
    .resize(width, height, { fit: 'cover' })
    .composite([{ input: overlay }])
    .removeAlpha()
    .png({ compressionLevel: 1 })
    .toBuffer();
  return { png, width, height, plates, texts, truth: await polygonMask(plates, width, height), distractors };
}

/** 1 inside any of `polygons`, else 0 (rasterised by librsvg, anti-aliased edges halved). */
export async function polygonMask(polygons: Point[][], width: number, height: number): Promise<Uint8Array> {
  const shapes = polygons.map(
    (points) => `<polygon points="${points.map((p) => `${p.x},${p.y}`).join(' ')}" fill="#fff"/>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#000"/>${shapes.join('')}</svg>`;
  const grey = await sharp(Buffer.from(svg)).extractChannel(0).raw().toBuffer();
  return Uint8Array.from(grey, (value) => (value >= 128 ? 1 : 0));
}
