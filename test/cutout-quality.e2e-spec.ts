/**
 * The cut-outs a client sees where the network alone fails (issue 26), over HTTP: the service's own plant sample
 * without a haze of its wall between the stems, a ring's hole, and a fur composite's soft edge. The truths are
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
import { alphaOf, maskIoU } from './helpers/mask-metrics';
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

/** True-background pixels (truth 0) inside `box` whose alpha is above 0.1, as a share of them. */
function haze(
  alpha: Uint8Array,
  truth: Uint8Array,
  width: number,
  box = { left: 0, top: 0, right: width, bottom: 1e9 },
) {
  let background = 0;
  let hazy = 0;
  for (let y = box.top; y < Math.min(box.bottom, truth.length / width); y++) {
    for (let x = box.left; x < box.right; x++) {
      const i = y * width + x;
      if (truth[i] !== 0) continue;
      background++;
      if (alpha[i] > 25) hazy++;
    }
  }
  return hazy / background;
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
    const share = haze(alpha, truth, 600, crown);
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
        const share = haze(alpha, item.truth, 640);
        expect(share, `${item.name}: haze ${(share * 100).toFixed(2)}%`).toBeLessThan(0.005);
        expect(maskIoU(alpha, item.truth), item.name).toBeGreaterThan(0.95);
      }
    });
  });
});
