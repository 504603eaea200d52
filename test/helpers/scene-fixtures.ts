import sharp from 'sharp';
import { editImage, fetchResult } from './edit-client';
import { call, type ApiResponse } from './http';
import type { TestApp } from './test-app';

/** `POST /v1/scene/create` as a client sends it (the admin key unless another is given). */
export function createScene(app: TestApp, body: unknown, key = app.adminKey): Promise<ApiResponse> {
  return call(app.url, 'POST', '/v1/scene/create', { key, body });
}

/** Where the product sits in {@link productImage}: a 256x512 body in a 400x700 transparent frame. */
export const PRODUCT = { frame: { width: 400, height: 700 }, box: { left: 72, top: 94, width: 256, height: 512 } };

/**
 * The colour of the product's pixel at (x, y) of its box: a saturated red with a fine texture (so that a pixel
 * equal to the input's is the input's, not a flat colour any backdrop could have) and a white band (a label).
 */
export function productColour(x: number, y: number): [number, number, number] {
  if (y >= 200 && y < 260) return [250, 250, 246 - ((x * 3) % 17)];
  return [190 + ((x * 7 + y * 13) % 61), 20 + ((x * y) % 31), 28 + ((x + 2 * y) % 23)];
}

/** A textured red bottle (rounded shoulders, a flat base) on a transparent background, as PNG. */
export async function productImage(): Promise<Buffer> {
  const { frame, box } = PRODUCT;
  const data = Buffer.alloc(frame.width * frame.height * 4);
  for (let y = 0; y < box.height; y += 1) {
    // shoulders: the top 96 rows narrow to a neck
    const inset = y < 96 ? Math.round(80 * (1 - y / 96)) : 0;
    for (let x = inset; x < box.width - inset; x += 1) {
      const offset = ((box.top + y) * frame.width + box.left + x) * 4;
      const [r, g, b] = productColour(x, y);
      data[offset] = r;
      data[offset + 1] = g;
      data[offset + 2] = b;
      data[offset + 3] = 255;
    }
  }
  return sharp(data, { raw: { width: frame.width, height: frame.height, channels: 4 } })
    .png()
    .toBuffer();
}

/** A textured template of `width` x `height` (deterministic noise over a wall-and-floor gradient), as PNG. */
export async function templateImage(width = 1024, height = 1024): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const noise = (seed >> 16) % 24;
      const floor = y > height * 0.6;
      const offset = (y * width + x) * 3;
      data[offset] = (floor ? 150 : 200) + noise;
      data[offset + 1] = (floor ? 120 : 190) + noise;
      data[offset + 2] = (floor ? 90 : 170) + noise;
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Raw pixels of an encoded image (its own channels). */
export async function rawOf(bytes: Buffer): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** The box of the pixels that `test` accepts, or undefined. */
export function boxWhere(
  image: { data: Buffer; width: number; height: number; channels: number },
  test: (r: number, g: number, b: number, a: number) => boolean,
): { left: number; top: number; right: number; bottom: number } | undefined {
  let left = Infinity;
  let top = Infinity;
  let right = -1;
  let bottom = -1;
  const { data, width, height, channels } = image;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const o = (y * width + x) * channels;
      if (!test(data[o], data[o + 1], data[o + 2], channels === 4 ? data[o + 3] : 255)) continue;
      left = Math.min(left, x);
      right = Math.max(right, x);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
  }
  return right < 0 ? undefined : { left, top, right: right + 1, bottom: bottom + 1 };
}

/** Whether a pixel is the product's red body (not a backdrop, shadow or white label). */
export function isProductRed(r: number, g: number, b: number): boolean {
  return r >= 150 && g <= 70 && b <= 70;
}

/** Mean absolute difference per channel value between two raw images of the same size. */
export function meanDifference(a: { data: Buffer }, b: { data: Buffer }): number {
  let sum = 0;
  for (let index = 0; index < a.data.length; index += 1) sum += Math.abs(a.data[index] - b.data[index]);
  return sum / a.data.length;
}

/**
 * `url` cut out by the service (background removal), its alpha made hard (0 or 255), as PNG: composited on two
 * backdrops, its pixels are then the same bytes on both, so a test can tell the object from the scene exactly.
 */
export async function hardCutout(app: TestApp, url: string): Promise<Buffer> {
  const res = await editImage(app, {
    input: url,
    operations: { background: { remove: true, color: 'transparent' } },
    output: { format: 'png' },
  });
  if (res.status !== 200) throw new Error(`the cut-out failed: ${res.status} ${res.text}`);
  const cut = await sharp(await fetchResult(app, res.body.data.output.tmp_url))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let i = 3; i < cut.data.length; i += 4) cut.data[i] = cut.data[i] >= 128 ? 255 : 0;
  const { width, height } = cut.info;
  return sharp(cut.data, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}
