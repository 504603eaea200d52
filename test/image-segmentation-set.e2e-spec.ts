/**
 * background.remove judged over HTTP on the composite set's base group (test/fixtures/composites: eleven objects
 * with known alpha, hard edges, soft edges, holes and thin parts, each on three of eight backgrounds): the alpha
 * a client gets back against the truth (IoU), and the old background's colour in the edge band of every
 * composite whose background is one flat colour. The soft and holes groups, which U2-Netp mostly misses, are
 * measured by the vision bench (docs/benchmarks.md); test/cutout-quality.e2e-spec.ts checks a fur composite.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compositeSet, SIZE, type Composite } from './fixtures/composites/composite-set.mjs';
import { editImage, fetchResult } from './helpers/edit-client';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { alphaOf, backgroundLeak, maskIoU } from './helpers/mask-metrics';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
let images: ImageServer;
let set: Composite[];
/** Each composite's result: RGBA at the canvas size. */
const results = new Map<string, Buffer>();

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  set = (await compositeSet()).filter((item) => item.group === 'base');
  for (const [index, item] of set.entries()) images.put(`/${index}.jpg`, item.jpeg);
  for (const [index, item] of set.entries()) {
    const res = await editImage(app, {
      input: images.url(`/${index}.jpg`),
      operations: { background: { remove: true, color: 'transparent' } },
      output: { format: 'png' },
    });
    expect(res.status, `${item.name}: ${JSON.stringify(res.body)}`).toBe(200);
    const png = await fetchResult(app, res.body.data.output.tmp_url);
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height], item.name).toEqual([SIZE.width, SIZE.height]);
    results.set(item.name, data);
  }
}, 300_000);

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

describe('background.remove on the composite set', () => {
  it('holds at least 30 composites of at least ten objects', () => {
    expect(set.length).toBeGreaterThanOrEqual(30);
    expect(new Set(set.map((item) => item.object)).size).toBeGreaterThanOrEqual(10);
  });

  it('cuts the objects out: mean IoU against the known alpha at least 0.95', () => {
    const scores = set.map((item) => ({ name: item.name, iou: maskIoU(alphaOf(results.get(item.name)!), item.truth) }));
    const mean = scores.reduce((sum, { iou }) => sum + iou, 0) / scores.length;
    const table = scores.map(({ name, iou }) => `${iou.toFixed(3)} ${name}`).join('\n');
    expect(mean, `mean ${mean.toFixed(4)}\n${table}`).toBeGreaterThanOrEqual(0.95);
  });

  it('leaves no pixel of a flat background colour in the object’s edge band', () => {
    const flats = set.filter((item) => item.flat);
    expect(flats.length).toBeGreaterThanOrEqual(6);
    for (const item of flats) {
      const leak = backgroundLeak(results.get(item.name)!, item.truth, item.colours, item.flat!, SIZE);
      expect(leak.band, item.name).toBeGreaterThan(100);
      expect(leak.leaked / leak.band, item.name).toBeLessThan(0.02);
    }
  });
});
