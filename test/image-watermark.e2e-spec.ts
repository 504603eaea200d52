import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editImage, fetchResult } from './helpers/edit-client';
import { call, client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { listKeys, readObject, s3StorageBody, startS3Server, type S3TestServer } from './helpers/s3-server';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { rawOf } from './helpers/scene-fixtures';
import { startTestApp, type TestApp } from './helpers/test-app';
import type { RunningProcess } from './helpers/process';
import { PutObjectCommand } from '@aws-sdk/client-s3';

/*
 * `operations.watermark` (libs/editing/src/operations/watermark/), checked by its pixels over HTTP: where the mark
 * lands for a position and an offset, its opacity, tiling, a text mark, and the same mark in an asynchronous task
 * and over a batch folder in a bucket (s3rver), with the mark's image read from a storage.
 */

let app: TestApp;
let images: ImageServer;
let s3: S3TestServer;
let worker: RunningProcess | undefined;

const GREY = 128;
/** A flat grey 400x300 PNG: every pixel the mark changes shows. */
const photo = () =>
  sharp({ create: { width: 400, height: 300, channels: 3, background: { r: GREY, g: GREY, b: GREY } } })
    .png()
    .toBuffer();
/** An opaque red 100x50 logo. */
const logo = () =>
  sharp({ create: { width: 100, height: 50, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } } })
    .png()
    .toBuffer();

beforeAll(async () => {
  images = await startImageServer();
  s3 = await startS3Server(['wm-in', 'wm-out']);
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  worker = await startWorkerFor(app);
  images.put('/grey.png', await photo());
  images.put('/logo.png', await logo());
  images.put('/notes.png', Buffer.from('not an image, whatever its name says'));
  images.put(
    '/mark.svg',
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'),
    'image/svg+xml',
  );
  images.put(
    '/huge.png',
    await sharp({ create: { width: 4100, height: 4100, channels: 3, background: { r: 0, g: 0, b: 0 } } })
      .png()
      .toBuffer(),
  );
  for (const [name, bucket] of [
    ['wmin', 'wm-in'],
    ['wmout', 'wm-out'],
  ]) {
    const res = await client(app.url, app.adminKey).post('/v1/storage/storages', s3StorageBody(s3, name, bucket));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  for (const [key, body] of [
    ['photos/a.png', await photo()],
    ['photos/b.png', await photo()],
    ['brand/logo.png', await logo()],
  ] as const) {
    await s3.client.send(new PutObjectCommand({ Bucket: 'wm-in', Key: key, Body: body }));
  }
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
  await s3?.stop();
});

type Raw = Awaited<ReturnType<typeof rawOf>>;

/** The grey photo edited with `watermark`, as PNG. */
function editWith(watermark: object) {
  return editImage(app, { input: images.url('/grey.png'), operations: { watermark }, output: { format: 'png' } });
}

async function watermarked(watermark: object): Promise<Raw> {
  const res = await editWith(watermark);
  expect(res.status, res.text).toBe(200);
  return rawOf(await fetchResult(app, res.body.data.output.tmp_url));
}

/** The box of the pixels that are no longer the flat grey, and how many there are. */
function marked(image: Raw): { left: number; top: number; right: number; bottom: number; count: number } {
  const box = { left: Infinity, top: Infinity, right: -1, bottom: -1, count: 0 };
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const at = (y * image.width + x) * image.channels;
      if ([0, 1, 2].every((c) => Math.abs(image.data[at + c] - GREY) <= 1)) continue;
      box.count++;
      box.left = Math.min(box.left, x);
      box.top = Math.min(box.top, y);
      box.right = Math.max(box.right, x);
      box.bottom = Math.max(box.bottom, y);
    }
  }
  return box;
}

const pixel = (image: Raw, x: number, y: number) => {
  const at = (y * image.width + x) * image.channels;
  return [...image.data.subarray(at, at + 3)];
};

describe('operations.watermark', () => {
  it('places an image mark against the corner it names, offset inward, scaled to a share of the width', async () => {
    const image = await watermarked({
      image: images.url('/logo.png'),
      position: 'north_west',
      offset: { x: 10, y: 20 },
      scale: 0.25,
    });
    expect([image.width, image.height]).toEqual([400, 300]);
    // 0.25 of 400 px: a 100x50 mark at (10, 20)
    expect(marked(image)).toMatchObject({ left: 10, top: 20, right: 109, bottom: 69, count: 100 * 50 });
    expect(pixel(image, 60, 45)).toEqual([255, 0, 0]);
  });

  it('defaults to the south-east corner at a fifth of the width, and blends by its opacity', async () => {
    const image = await watermarked({ image: images.url('/logo.png'), opacity: 0.5 });
    // 80x40 against the bottom-right corner
    expect(marked(image)).toMatchObject({ left: 320, top: 260, right: 399, bottom: 299 });
    const [r, g, b] = pixel(image, 360, 280);
    expect(Math.abs(r - (255 + GREY) / 2)).toBeLessThanOrEqual(2);
    expect(Math.abs(g - GREY / 2)).toBeLessThanOrEqual(2);
    expect(Math.abs(b - GREY / 2)).toBeLessThanOrEqual(2);
  });

  it('centres the mark for position center, and on the named edge for north', async () => {
    const centre = marked(await watermarked({ image: images.url('/logo.png'), position: 'center', scale: 0.5 }));
    expect(centre).toMatchObject({ left: 100, top: 100, right: 299, bottom: 199 });
    const north = marked(await watermarked({ image: images.url('/logo.png'), position: 'north', offset: { y: 5 } }));
    expect(north).toMatchObject({ left: 160, top: 5, right: 239, bottom: 44 });
  });

  it('tiles the mark over the whole image, with space between the tiles', async () => {
    const image = await watermarked({ image: images.url('/logo.png'), tile: true, scale: 0.1 });
    const quadrant = (x0: number, y0: number) => {
      let count = 0;
      for (let y = y0; y < y0 + 150; y++)
        for (let x = x0; x < x0 + 200; x++) if (pixel(image, x, y)[1] < GREY / 2) count++;
      return count / (200 * 150);
    };
    // every quadrant holds red tiles, none is covered: 40x20 tiles with gaps
    for (const [x, y] of [
      [0, 0],
      [200, 0],
      [0, 150],
      [200, 150],
    ]) {
      expect(quadrant(x, y)).toBeGreaterThan(0.15);
      expect(quadrant(x, y)).toBeLessThan(0.7);
    }
  });

  it('draws a text mark in its colour at the given font size', async () => {
    const image = await watermarked({ text: 'SAMPLE', color: '#0000ff', font_size: 40, position: 'south_west' });
    const box = marked(image);
    expect(box.left).toBeLessThan(5);
    expect(box.bottom).toBeGreaterThan(290);
    // a 40 px line of six capitals: about 40 px high, far wider than high
    expect(box.bottom - box.top).toBeGreaterThan(20);
    expect(box.bottom - box.top).toBeLessThan(50);
    expect(box.right - box.left).toBeGreaterThan(100);
    let blue = 0;
    for (let y = box.top; y <= box.bottom; y++)
      for (let x = box.left; x <= box.right; x++) {
        const [r, g, b] = pixel(image, x, y);
        if (b > 200 && r < 60 && g < 60) blue++;
      }
    expect(blue).toBeGreaterThan(200);
  });

  it('refuses a mark with both image and text, a colour for an image, and an unknown member (422)', async () => {
    const both = await editWith({ image: images.url('/logo.png'), text: 'x' });
    expect(both.status).toBe(422);
    expect(both.body.error_details['operations.watermark']).toEqual(['watermark needs exactly one of image and text']);
    const colour = await editWith({ image: images.url('/logo.png'), color: '#fff' });
    expect(colour.status).toBe(422);
    expect(colour.body.error_details['operations.watermark.color']).toBeDefined();
    const unknown = await editWith({ text: 'x', angle: 45 });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body.error_details)).toContain('angle');
    const notImage = await editWith({ image: images.url('/missing.png') });
    // the mark's origin answered 404: the same error as an input that is not there
    expect(notImage.body.error_code, JSON.stringify(notImage.body)).toBe('1402');
    const notPicture = await editWith({ image: images.url('/notes.png') });
    expect(notPicture.status, JSON.stringify(notPicture.body)).toBe(422);
    expect(notPicture.body.error_details['operations.watermark.image']).toEqual([
      'is not an image this service can read',
    ]);
    // an SVG is not among the formats an input may have, and no more a mark's
    const svg = await editWith({ image: images.url('/mark.svg') });
    expect(svg.status, JSON.stringify(svg.body)).toBe(422);
    expect(svg.body.error_details['operations.watermark.image']).toEqual(['is not an image this service can read']);
  });

  it('draws a very long, very large text within the image, and refuses a mark image over 4096 x 4096', async () => {
    const image = await watermarked({ text: 'W'.repeat(200), font_size: 1000, position: 'north_west' });
    const box = marked(image);
    expect(box.count).toBeGreaterThan(0);
    expect(box.right).toBeLessThan(400);
    expect(box.bottom).toBeLessThan(300);
    const huge = await editWith({ image: images.url('/huge.png') });
    expect(huge.status, JSON.stringify(huge.body)).toBe(422);
    expect(huge.body.error_details['operations.watermark.image']).toEqual([
      'must be an image of at most 16777216 pixels (it is 4100x4100)',
    ]);
  });

  it('marks the result of an asynchronous task', async () => {
    const res = await call(app.url, 'POST', '/v1/image/edit/async', {
      key: app.adminKey,
      body: {
        input: images.url('/grey.png'),
        operations: { watermark: { image: 'storage://wmin/brand/logo.png', scale: 0.25 } },
        output: { destination: 'storage://wmout/async/grey.png', format: 'png' },
      },
    });
    expect(res.status, res.text).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${res.body.data.id}`);
    expect(task.status, JSON.stringify(task)).toBe('DONE');
    const image = await rawOf(await readObject(s3, 'wm-out', 'async/grey.png'));
    expect(marked(image)).toMatchObject({ left: 300, top: 250, right: 399, bottom: 299 });
  });

  it('marks every image of a batch folder, the mark read from a storage', async () => {
    const res = await client(app.url, app.adminKey).post('/v1/image/edit/batch', {
      input: 'storage://wmin/photos/',
      operations: { watermark: { image: 'storage://wmin/brand/logo.png', position: 'north_east', scale: 0.25 } },
      output: { destination: 'storage://wmout/batch/', format: 'png' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${res.body.data.id}`);
    expect(task.status, JSON.stringify(task)).toBe('DONE');
    expect(await listKeys(s3, 'wm-out', 'batch/')).toEqual(['batch/a.png', 'batch/b.png']);
    for (const key of ['batch/a.png', 'batch/b.png']) {
      const image = await rawOf(await readObject(s3, 'wm-out', key));
      expect(marked(image), key).toMatchObject({ left: 300, top: 0, right: 399, bottom: 49, count: 100 * 50 });
    }
  });
});
