/**
 * The cut-outs a client sees where the network alone fails (issue 26), over HTTP: the service's own plant sample
 * without a haze of its wall between the stems, a ring's hole, a fur composite's soft edge, an out-of-focus scene
 * behind a product, and strands of hair followed over a plain wall. The truths are
 * drawn: the plant's drawing without its wall, floor and shadow (scripts/sample-drawings.mjs), and the
 * composite set's known alphas (test/fixtures/composites).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantAlone } from '../scripts/sample-drawings.mjs';
import { compositeSet, type Composite } from './fixtures/composites/composite-set.mjs';
import { editImage, fetchResult } from './helpers/edit-client';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { alphaMetrics, alphaOf, maskIoU } from './helpers/mask-metrics';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
let images: ImageServer;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

/** background.remove of `jpeg` (served by the test's origin) as PNG: the result's alpha, checked to be `size`. */
async function cutOut(jpeg: Buffer, size: { width: number; height: number }): Promise<Uint8Array> {
  const path = `/${images.hits.size}-${Math.random().toString(36).slice(2)}.jpg`;
  images.put(path, jpeg);
  const res = await editImage(app, {
    input: images.url(path),
    operations: { background: { remove: true, color: 'transparent' } },
    output: { format: 'png' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const png = await fetchResult(app, res.body.data.output.tmp_url);
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).toEqual([size.width, size.height]);
  return alphaOf(data);
}

/**
 * True-background pixels (truth 0) inside `box` whose alpha is above 0.1, as a share of them; with `margin`, only
 * those farther than that from the object (the JPEG's antialiased rim along an edge is not haze).
 */
function haze(
  alpha: Uint8Array,
  truth: Uint8Array,
  width: number,
  box = { left: 0, top: 0, right: width, bottom: 1e9 },
  margin = 0,
) {
  let background = 0;
  let hazy = 0;
  for (let y = box.top; y < Math.min(box.bottom, truth.length / width); y++) {
    for (let x = box.left; x < box.right; x++) {
      const i = y * width + x;
      if (truth[i] !== 0 || nearObject(truth, width, x, y, margin)) continue;
      background++;
      if (alpha[i] > 25) hazy++;
    }
  }
  return hazy / background;
}

/** Whether a pixel of the object (truth above 0) lies within `margin` of (x, y). */
function nearObject(truth: Uint8Array, width: number, x: number, y: number, margin: number): boolean {
  const height = truth.length / width;
  for (let dy = -margin; dy <= margin; dy++) {
    for (let dx = -margin; dx <= margin; dx++) {
      const nx = x + dx;
      const ny = y + dy;
      if (nx >= 0 && ny >= 0 && nx < width && ny < height && truth[ny * width + nx] !== 0) return true;
    }
  }
  return false;
}

/**
 * The true-background pixels (truth 0) not connected to the image's border through other background pixels: the
 * holes the object encloses, less `margin` pixels along their edge (antialiased there).
 */
function enclosedBackground(truth: Uint8Array, width: number, height: number, margin: number) {
  const outside = new Uint8Array(truth.length);
  const stack: number[] = [];
  for (let x = 0; x < width; x++) stack.push(x, (height - 1) * width + x);
  for (let y = 0; y < height; y++) stack.push(y * width, y * width + width - 1);
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (outside[i] || truth[i] !== 0) continue;
    outside[i] = 1;
    const x = i % width;
    if (x > 0) stack.push(i - 1);
    if (x < width - 1) stack.push(i + 1);
    if (i >= width) stack.push(i - width);
    if (i < truth.length - width) stack.push(i + width);
  }
  const pixels: number[] = [];
  for (let y = margin; y < height - margin; y++) {
    for (let x = margin; x < width - margin; x++) {
      let inside = true;
      for (let dy = -margin; dy <= margin && inside; dy++) {
        for (let dx = -margin; dx <= margin && inside; dx++) {
          const j = (y + dy) * width + x + dx;
          if (truth[j] !== 0 || outside[j]) inside = false;
        }
      }
      if (inside) pixels.push(y * width + x);
    }
  }
  return { pixels, count: pixels.length };
}

describe('background.remove where the network alone fails', () => {
  it('cuts the plant sample out with no haze of the wall between its stems and leaves', async () => {
    const jpeg = readFileSync(join(__dirname, '../libs/storage/samples/plant.jpg'));
    const alpha = await cutOut(jpeg, { width: 600, height: 600 });
    const truth = new Uint8Array(
      await sharp(Buffer.from(plantAlone), { density: 72 }).extractChannel(3).raw().toBuffer(),
    );
    // the leaves and stems: above the pot's rim, between the outermost leaves
    const crown = { left: 90, top: 40, right: 515, bottom: 344 };
    // the wall farther than 3 px from the plant: the JPEG's antialiased rim along every edge is not haze
    const share = haze(alpha, truth, 600, crown, 3);
    expect(share, `haze ${(share * 100).toFixed(2)}% of the wall between the stems`).toBeLessThan(0.005);
    expect(maskIoU(alpha, truth)).toBeGreaterThan(0.95);
  });

  describe('on the composite set', () => {
    let set: Composite[];
    beforeAll(async () => {
      set = await compositeSet();
    }, 60_000);

    it('opens the ring’s hole on every background', async () => {
      for (const item of set.filter((s) => s.object === 'gold ring')) {
        const alpha = await cutOut(item.jpeg, { width: 640, height: 640 });
        const hole = enclosedBackground(item.truth, 640, 640, 3);
        expect(hole.count, item.name).toBeGreaterThan(10_000);
        let open = 0;
        for (const i of hole.pixels) if (alpha[i] <= 25) open++;
        expect(open / hole.count, `${item.name}: share of the hole left open`).toBeGreaterThan(0.99);
        expect(maskIoU(alpha, item.truth), item.name).toBeGreaterThan(0.95);
      }
    });

    it('keeps the soft edge of fur and hair: SAD against the known alpha, lower than the network alone gave', async () => {
      // before issue 26's refinement (the same service without it, measured on these composites): 5.51 and 32.05
      const limits: Record<string, number> = {
        'fur collar on gravel (photo texture)': 4.5,
        'long hair on wooden table (photo)': 31,
      };
      for (const [name, limit] of Object.entries(limits)) {
        const item = set.find((s) => s.name === name)!;
        const alpha = await cutOut(item.jpeg, { width: 640, height: 640 });
        const metrics = alphaMetrics(alpha, item.truth, 640, 640);
        expect(metrics.sad, `${name}: SAD`).toBeLessThan(limit);
        expect(metrics.haze, `${name}: haze`).toBeLessThan(0.005);
      }
    });

    it('drops the out-of-focus scene behind a product that the network marked with it', async () => {
      // the plant behind the collar and the chain is blurred; the network alone took it for the object (before this
      // step: IoU 0.35 and 0.05, haze 20% and 17% of the true background)
      for (const name of ['fur collar on blurred scene (photo)', 'necklace chain on blurred scene (photo)']) {
        const item = set.find((s) => s.name === name)!;
        const alpha = await cutOut(item.jpeg, { width: 640, height: 640 });
        const metrics = alphaMetrics(alpha, item.truth, 640, 640);
        expect(metrics.haze, `${name}: haze`).toBeLessThan(0.03);
        expect(metrics.sad, `${name}: SAD`).toBeLessThan(15);
      }
    });

    it('follows strands of hair past the search’s reach on a plain wall', async () => {
      // the strands end up to 250 px below the head; found within 80 px only, the SAD was 26.3
      const item = set.find((s) => s.name === 'long hair on flat teal')!;
      const alpha = await cutOut(item.jpeg, { width: 640, height: 640 });
      const metrics = alphaMetrics(alpha, item.truth, 640, 640);
      expect(metrics.sad).toBeLessThan(23);
      expect(metrics.haze).toBeLessThan(0.005);
    });
  });
});
