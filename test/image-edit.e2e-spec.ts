import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iccDescription } from '@app/image-pipeline';
import { bombPng, quadrantsImage } from './fixtures/images';
import { editImage, fetchResult } from './helpers/edit-client';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
let images: ImageServer;

beforeAll(async () => {
  images = await startImageServer();
  // GENERATIVE_BACKEND=none: a deployment that turned generative work off, where style transfer answers 501
  app = await startTestApp({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    MAX_INPUT_PIXELS: '20000000',
    GENERATIVE_BACKEND: 'none',
  });
  images.put('/photo.jpg', await quadrantsImage({ format: 'jpeg', width: 400, height: 300 }));
  images.put('/logo.png', await quadrantsImage({ format: 'png', width: 64, height: 48, alpha: true }));
  images.put('/not-an-image.jpg', Buffer.from('hello, this is text and not an image at all'));
  images.put('/bomb.png', bombPng());
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

function edit(body: unknown) {
  return editImage(app, body);
}

describe('POST /v1/image/edit', () => {
  it('edits an image from a URL into the temporary bucket; ImageInfo matches the bytes', async () => {
    const response = await edit({
      input: images.url('/photo.jpg'),
      operations: { resizing: { width: 200, fit: 'bounds' } },
      output: { format: 'webp' },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.input).toEqual({
      ext: 'jpg',
      mps: 0.12,
      mime: 'image/jpeg',
      format: 'jpeg',
      width: 400,
      height: 300,
    });
    const output = response.body.data.output;
    expect(output).toMatchObject({
      ext: 'webp',
      mime: 'image/webp',
      format: 'webp',
      width: 200,
      height: 150,
      mps: 0.03,
    });
    expect(output.tmp_url).toMatch(new RegExp(`^${app.config.publicBaseUrl}/tmp/[A-Za-z0-9_-]{43}\\.webp$`));
    const bytes = await fetchResult(app, output.tmp_url);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 200, 150]);
    expect(response.headers.get('ratelimit-remaining')).not.toBeNull();
  });

  it('keeps the input format when none is asked for, with the sRGB profile embedded', async () => {
    const response = await edit({ input: images.url('/photo.jpg') });
    expect(response.status).toBe(200);
    expect(response.body.data.output).toMatchObject({ format: 'jpeg', ext: 'jpg', width: 400, height: 300 });
    const meta = await sharp(await fetchResult(app, response.body.data.output.tmp_url)).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.icc).toBeDefined();
    expect(iccDescription(meta.icc!)).toBe('sRGB');
  });

  it('flattens a transparent PNG onto white for JPEG output and keeps alpha for PNG', async () => {
    const jpeg = await edit({ input: images.url('/logo.png'), output: { format: 'jpeg' } });
    expect(jpeg.status).toBe(200);
    const flat = await sharp(await fetchResult(app, jpeg.body.data.output.tmp_url))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(flat.info.channels).toBe(3);
    // bottom-right quadrant: white at alpha 128 over white stays white
    const offset = (40 * 64 + 60) * 3;
    expect([...flat.data.subarray(offset, offset + 3)].every((v) => v > 245)).toBe(true);
    const png = await edit({ input: images.url('/logo.png') });
    const kept = await sharp(await fetchResult(app, png.body.data.output.tmp_url))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(kept.info.channels).toBe(4);
    expect(kept.data[(40 * 64 + 60) * 4 + 3]).toBe(128);
  });

  it('answers 422 for bytes that are not an image, whatever the name says', async () => {
    const response = await edit({ input: images.url('/not-an-image.jpg') });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error_code: '1601', error_type: 'image' });
    expect(response.body.error_details.input).toBeDefined();
  });

  it('refuses a decompression bomb from its header, quickly and without a memory spike', async () => {
    const before = process.memoryUsage().rss;
    const response = await edit({ input: images.url('/bomb.png') });
    const grown = process.memoryUsage().rss - before;
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error_code: '1603', error_type: 'image' });
    expect(response.body.error_message).toMatch(/100000 x 100000/);
    expect(grown).toBeLessThan(64 * 1024 * 1024);
  });

  it('answers 400 when the input URL cannot be fetched', async () => {
    const response = await edit({ input: images.url('/missing.jpg') });
    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('1402');
  });

  it('answers 501 naming an operation that needs a model, after validating it', async () => {
    // no generative backend here (GENERATIVE_BACKEND=none)
    const response = await edit({
      input: images.url('/photo.jpg'),
      operations: { generative: { style_transfer: { prompt: 'soft watercolour' } } },
    });
    expect(response.status).toBe(501);
    expect(response.body.error_code).toBe('1604');
    expect(response.body.error_message).toMatch(/operations\.generative\.style_transfer/);
    expect(response.body.error_details).toHaveProperty(['operations.generative.style_transfer']);
  });

  it('needs the image_editing scope', async () => {
    const created = await call(app.url, 'POST', '/v1/keys', {
      key: app.adminKey,
      body: { name: 'storage only', scopes: ['storage'] },
    });
    expect(created.status).toBe(200);
    const response = await call(app.url, 'POST', '/v1/image/edit', {
      key: created.body.data.key,
      body: { input: images.url('/photo.jpg') },
    });
    expect(response.status).toBe(403);
  });
});

describe('POST /v1/image/edit/upload', () => {
  async function upload(file: Buffer | undefined, data?: unknown, filename = 'shoe.png') {
    const form = new FormData();
    if (file) form.append('file', new Blob([file]), filename);
    if (data !== undefined) form.append('data', typeof data === 'string' ? data : JSON.stringify(data));
    const response = await fetch(`${app.url}/v1/image/edit/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.adminKey}` },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  it('edits an uploaded file with the data part', async () => {
    const file = await quadrantsImage({ format: 'png', width: 64, height: 48 });
    const response = await upload(file, { operations: { resizing: { width: '50%' } }, output: { format: 'avif' } });
    expect(response.status).toBe(200);
    expect(response.body.data.input).toMatchObject({ format: 'png', width: 64, height: 48 });
    expect(response.body.data.output).toMatchObject({
      format: 'avif',
      ext: 'avif',
      mime: 'image/avif',
      width: 32,
      height: 24,
    });
    const meta = await sharp(await fetchResult(app, response.body.data.output.tmp_url)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['heif', 32, 24]);
  });

  it('works without a data part', async () => {
    const response = await upload(await quadrantsImage({ format: 'gif', width: 64, height: 48 }));
    expect(response.status).toBe(200);
    expect(response.body.data.input.format).toBe('gif');
    expect(response.body.data.output).toMatchObject({ format: 'png', width: 64, height: 48 });
  });

  it('refuses a missing file, an input member and bad JSON', async () => {
    const missing = await upload(undefined, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error_details).toHaveProperty('file');
    const withInput = await upload(await quadrantsImage({ format: 'png' }), { input: 'https://example.com/a.png' });
    expect(withInput.status).toBe(422);
    expect(withInput.body.error_details).toHaveProperty('input');
    const badJson = await upload(await quadrantsImage({ format: 'png' }), '{not json');
    expect(badJson.status).toBe(400);
    expect(badJson.body.error_code).toBe('9001');
  });
});
