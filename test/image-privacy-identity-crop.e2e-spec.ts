/**
 * privacy.identity_crop over HTTP, on the real face models (face-api's SSD MobileNet V1 and 68 landmarks on TF.js
 * WASM, libs/vision): portraits whose subnasale and upper lip were labelled by hand (test/fixtures/faces), judged by
 * what a client gets back: the result's size and pixels against the original, the cut between nose and mouth of
 * the lowest face, later steps sized from the cropped image, the notice when there is no face, the same operation
 * through a task, and a model failure that fails its own edit only.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaceApiDetector } from '@app/vision';
import { faceFixtures, NO_FACE, type FaceFixture, type LabelledFace } from './fixtures/faces';
import { editImage, fetchResult } from './helpers/edit-client';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import type { RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
let images: ImageServer;
let worker: RunningProcess | undefined;
let fixtures: FaceFixture[];

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  worker = await startWorkerFor(app);
  fixtures = await faceFixtures();
  fixtures.forEach((fixture, index) => images.put(`/${index}.jpg`, fixture.jpeg));
  images.put('/no-face.png', NO_FACE);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
});

const identityCrop = { privacy: { identity_crop: true } };

async function rgb(bytes: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(bytes)
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean absolute difference per channel value between the result and the original's rows from `top` down. */
async function differenceFromRows(result: Buffer, original: Buffer, top: number): Promise<number> {
  const out = await rgb(result);
  const source = await rgb(original);
  const rows = source.data.subarray(top * source.width * 3);
  expect(rows.length).toBe(out.data.length);
  let sum = 0;
  for (let i = 0; i < rows.length; i++) sum += Math.abs(rows[i] - out.data[i]);
  return sum / rows.length;
}

/** The hand-labelled face whose nose-mouth line is the lowest: where the cut must be. */
const lowest = (fixture: FaceFixture): LabelledFace => fixture.faces[fixture.faces.length - 1];

/** The cut row lies between the subnasale and the top of the upper lip (1 px: the labels' own precision). */
function expectBetweenNoseAndMouth(top: number, face: LabelledFace, name: string): void {
  expect(top, `${name}: cut at row ${top}, nose at ${face.nose.y}`).toBeGreaterThanOrEqual(Math.floor(face.nose.y) - 1);
  expect(top, `${name}: cut at row ${top}, lip at ${face.lip.y}`).toBeLessThanOrEqual(Math.ceil(face.lip.y) + 1);
}

describe('privacy.identity_crop on the real face models', () => {
  it('cuts every portrait between nose and mouth of its lowest face, keeping the original pixels below', async () => {
    for (const [index, fixture] of fixtures.entries()) {
      const res = await editImage(app, {
        input: images.url(`/${index}.jpg`),
        operations: identityCrop,
        output: { format: 'png' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.notices, fixture.name).toBeUndefined();
      const { width, height } = res.body.data.output;
      expect(width, fixture.name).toBe(fixture.width);
      const top = fixture.height - height;
      expectBetweenNoseAndMouth(top, lowest(fixture), fixture.name);
      // every face's eyes are above the cut: the highest face's nose is too
      expect(fixture.faces[0].nose.y, fixture.name).toBeLessThanOrEqual(top + 1);
      const png = await fetchResult(app, res.body.data.output.tmp_url);
      expect(await differenceFromRows(png, fixture.jpeg, top), fixture.name).toBeLessThan(0.5);
    }
    const ready = await call(app.url, 'GET', '/health/ready');
    expect(ready.body.data.models['face-detection']).toBe('loaded');
  }, 120_000);

  it('finds the faces of the image as displayed (EXIF orientation applied) and cuts that image', async () => {
    const portrait = fixtures[0];
    const upright = await sharp(portrait.jpeg).extract({ left: 0, top: 0, width: 512, height: 400 }).png().toBuffer();
    // stored turned a quarter to the left (400 x 512), displayed upright by orientation 6 (turn right)
    const stored = await sharp(upright).rotate(270).withMetadata({ orientation: 6 }).jpeg({ quality: 95 }).toBuffer();
    images.put('/turned.jpg', stored);
    const res = await editImage(app, {
      input: images.url('/turned.jpg'),
      operations: identityCrop,
      output: { format: 'png' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.input).toMatchObject({ width: 512, height: 400 });
    expect(res.body.data.output.width).toBe(512);
    const top = 400 - res.body.data.output.height;
    expectBetweenNoseAndMouth(top, lowest(portrait), 'turned astronaut');
    const png = await fetchResult(app, res.body.data.output.tmp_url);
    // JPEG at quality 95 twice over: close to the original's rows, not equal
    expect(await differenceFromRows(png, upright, top)).toBeLessThan(3);
  });

  it('leaves an image without a face unchanged and says so in a notice a client can read', async () => {
    const res = await editImage(app, {
      input: images.url('/no-face.png'),
      operations: identityCrop,
      output: { format: 'png' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.notices).toEqual([
      {
        code: 'NO_FACE_FOUND',
        field: 'operations.privacy.identity_crop',
        message: 'No face was found in the image: identity_crop left it uncut.',
      },
    ]);
    const { width, height } = await sharp(NO_FACE).metadata();
    expect(res.body.data.output).toMatchObject({ width, height });
    const png = await fetchResult(app, res.body.data.output.tmp_url);
    expect(await differenceFromRows(png, NO_FACE, 0)).toBe(0);
  });

  it('sizes the later steps from the cropped image: the resize rules apply to the cropped size', async () => {
    const portrait = fixtures[0];
    const cropped = await editImage(app, { input: images.url('/0.jpg'), operations: identityCrop });
    const croppedHeight = cropped.body.data.output.height;
    const res = await editImage(app, {
      input: images.url('/0.jpg'),
      operations: { ...identityCrop, resizing: { width: 256, fit: 'bounds' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // rule 3: the other side automatic, the (cropped) aspect ratio kept
    expect(res.body.data.output).toMatchObject({
      width: 256,
      height: Math.round((256 * croppedHeight) / portrait.width),
    });
    expect(croppedHeight).toBeLessThan(portrait.height * 0.8);
    // rule 2 (fit crop, one side): the other side unchanged, which is the cropped height
    const crop = await editImage(app, {
      input: images.url('/0.jpg'),
      operations: { ...identityCrop, resizing: { width: 256 } },
    });
    expect(crop.body.data.output).toMatchObject({ width: 256, height: croppedHeight });
  });

  it('runs in an asynchronous task too (the same executor), whose result carries the notice', async () => {
    const fixture = fixtures[3];
    const res = await call(app.url, 'POST', '/v1/image/edit/async', {
      key: app.adminKey,
      body: { input: images.url('/3.jpg'), operations: identityCrop, output: { format: 'png' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${res.body.data.id}`);
    expect(task.status, JSON.stringify(task.errors)).toBe('DONE');
    const output = task.result.output_object;
    expect(output.width).toBe(fixture.width);
    expectBetweenNoseAndMouth(fixture.height - output.height, lowest(fixture), fixture.name);
    expect(task.result.notices).toBeUndefined();
    expect(output.notices).toBeUndefined();
    // without a face, the task's result carries the same notice as the edit's answer
    const noFace = await call(app.url, 'POST', '/v1/image/edit/async', {
      key: app.adminKey,
      body: { input: images.url('/no-face.png'), operations: identityCrop },
    });
    const uncut = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${noFace.body.data.id}`);
    expect(uncut.status, JSON.stringify(uncut.errors)).toBe('DONE');
    expect(uncut.result.notices).toMatchObject([{ code: 'NO_FACE_FOUND', field: 'operations.privacy.identity_crop' }]);
    expect(uncut.results[0].notices).toEqual(uncut.result.notices);
    expect(uncut.result.output_object).not.toHaveProperty('notices');
  });

  it('fails only the edit whose inference fails, with a clear error; the next edit and task still work', async (context) => {
    // In scaled mode (REDIS_URL) task items run in the worker app, out of this process's reach.
    if (app.env.REDIS_URL) context.skip();
    const detector = app.app.get(FaceApiDetector);
    await detector.runner.load();
    // the model's worker thread, where the runtime's own errors arise (ModelRunner turns them into the answer)
    const pool = (detector.runner as unknown as { pool: { run(task: { width?: number }): Promise<unknown> } }).pool;
    const run = pool.run.bind(pool);
    // the failure TF.js's WASM heap gives when it cannot grow, for the one image of 900 x 600
    pool.run = async (task) => {
      if (task.width === 900) throw new Error('RuntimeError: memory access out of bounds\n    at wasm-function');
      return run(task);
    };
    try {
      const failing = await call(app.url, 'POST', '/v1/image/edit/async', {
        key: app.adminKey,
        body: { input: images.url('/3.jpg'), operations: identityCrop },
      });
      const failed = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${failing.body.data.id}`);
      expect(failed.status).toBe('ERROR');
      expect(failed.progress).toMatchObject({ total: 1, done: 0, failed: 1 });
      expect(failed.errors[0].error).toBe(
        'The face-detection model failed on this image: RuntimeError: memory access out of bounds',
      );
      const fine = await call(app.url, 'POST', '/v1/image/edit/async', {
        key: app.adminKey,
        body: { input: images.url('/0.jpg'), operations: identityCrop },
      });
      const done = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${fine.body.data.id}`);
      expect(done.status, JSON.stringify(done.errors)).toBe('DONE');
      const sync = await editImage(app, { input: images.url('/3.jpg'), operations: identityCrop });
      expect(sync.status).toBe(500);
      expect(sync.body.error_code).toBe('9500');
    } finally {
      pool.run = run;
    }
  });
});
