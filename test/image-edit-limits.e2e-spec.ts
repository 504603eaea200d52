import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { editImage, fetchResult } from './helpers/edit-client';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/** Sizes and inputs that would cost memory far beyond the image itself, and 16-bit inputs. */
let app: TestApp;
let images: ImageServer;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', MAX_INPUT_PIXELS: '4000000', FETCH_MAX_BYTES: '2000000' });
  images.put(
    '/thin.png',
    await sharp({ create: { width: 10, height: 2000, channels: 3, background: '#808080' } })
      .png()
      .toBuffer(),
  );
  images.put('/big.jpg', await quadrantsImage({ format: 'jpeg', width: 1900, height: 1900 }));
  images.put(
    '/wide.png',
    await sharp({ create: { width: 10000, height: 20, channels: 3, background: '#336699' } })
      .png()
      .toBuffer(),
  );
  const colour = { r: 200, g: 40, b: 60 };
  const rgb16 = await sharp({ create: { width: 40, height: 40, channels: 3, background: colour } })
    .png()
    .toBuffer();
  images.put('/deep.png', await sharp(rgb16).toColourspace('rgb16').withIccProfile('srgb').png().toBuffer());
  images.put('/shallow.png', rgb16);
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

function edit(body: unknown) {
  return editImage(app, body);
}

async function firstPixel(response: Awaited<ReturnType<typeof edit>>): Promise<number[]> {
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const file = await fetchResult(app, response.body.data.output.tmp_url);
  const { data } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

describe('sizes between the stages are bounded by MAX_INPUT_PIXELS too', () => {
  it('a crop whose covering size is huge answers 422 at once', async () => {
    const response = await edit({
      input: images.url('/thin.png'),
      operations: { resizing: { width: 1500, height: 1500, fit: { crop: 'smart' } } },
    });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual(['operations.resizing']);
    expect(response.body.error_message).toMatch(/scaled to cover/);
  });

  it('padding that makes the image too large answers 422 at operations.padding', async () => {
    const response = await edit({
      input: images.url('/big.jpg'),
      operations: { padding: '25%', resizing: { width: 100 } },
    });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual(['operations.padding']);
  });

  it('a side longer than the format holds answers 422, not 500', async () => {
    const response = await edit({
      input: images.url('/wide.png'),
      operations: { resizing: { width: '200%' } },
      output: { format: 'webp' },
    });
    expect(response.status).toBe(422);
    expect(response.body.error_details['operations.resizing'][0]).toMatch(/webp holds at most 16383/);
    const png = await edit({
      input: images.url('/wide.png'),
      operations: { resizing: { width: '150%' } },
      output: { format: 'png' },
    });
    expect(png.status).toBe(200);
    expect(png.body.data.output.width).toBe(15000);
  });
});

describe('16-bit inputs', () => {
  it('adjustments give the same pixels as for the 8-bit image', async () => {
    for (const adjustments of [{ contrast: 50 }, { contrast: -50 }, { exposure: 50 }]) {
      const deep = await firstPixel(
        await edit({ input: images.url('/deep.png'), operations: { adjustments }, output: { format: 'png' } }),
      );
      const shallow = await firstPixel(
        await edit({ input: images.url('/shallow.png'), operations: { adjustments }, output: { format: 'png' } }),
      );
      deep.forEach((value, i) =>
        expect(Math.abs(value - shallow[i]), JSON.stringify({ adjustments, deep, shallow })).toBeLessThanOrEqual(2),
      );
    }
  });

  it('keeps its colour through stages that work on 8-bit pixels', async () => {
    for (const operations of [{}, { padding: '5px', resizing: { width: 30 } }, { adjustments: { hdr: 1 } }]) {
      const pixel = await firstPixel(
        await edit({ input: images.url('/deep.png'), operations, output: { format: 'jpeg' } }),
      );
      const expected = operations.padding ? [255, 255, 255] : [200, 40, 60];
      pixel.forEach((value, i) =>
        expect(Math.abs(value - expected[i]), JSON.stringify({ operations, pixel })).toBeLessThanOrEqual(4),
      );
    }
  });
});

describe('uploads', () => {
  async function upload(parts: Array<[string, Blob | string, string?]>) {
    const form = new FormData();
    for (const [name, value, filename] of parts) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, value, filename);
    }
    const response = await fetch(`${app.url}/v1/image/edit/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.adminKey}` },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  it('takes a data part sent as application/json (a field with its own content type)', async () => {
    const png = await quadrantsImage({ format: 'png', width: 64, height: 48 });
    const json = JSON.stringify({ operations: { resizing: { width: 32 } }, output: { format: 'webp' } });
    const body = Buffer.concat([
      Buffer.from(
        '--b0\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n',
      ),
      png,
      Buffer.from(
        `\r\n--b0\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n${json}\r\n--b0--\r\n`,
      ),
    ]);
    const response = await call(app.url, 'POST', '/v1/image/edit/upload', {
      key: app.adminKey,
      rawBody: body,
      headers: { 'content-type': 'multipart/form-data; boundary=b0' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({ format: 'webp', width: 32, height: 48 });
  });

  it('refuses a second data part and a second file', async () => {
    const file = new Blob([await quadrantsImage({ format: 'png' })]);
    const twice = await upload([
      ['file', file, 'a.png'],
      ['data', '{}'],
      ['data', '{"output": {"format": "png"}}'],
    ]);
    expect(twice.status).toBe(422);
    expect(Object.keys(twice.body.error_details)).toEqual(['data']);
    const twoFiles = await upload([
      ['file', file, 'a.png'],
      ['file', file, 'b.png'],
    ]);
    expect(twoFiles.status).toBe(422);
    expect(Object.keys(twoFiles.body.error_details)).toEqual(['file']);
  });

  it('answers 413 for a file over FETCH_MAX_BYTES', async () => {
    const response = await upload([['file', new Blob([Buffer.alloc(2_100_000, 1)]), 'huge.png']]);
    expect(response.status).toBe(413);
    expect(response.body.error_code).toBe('9004');
  });

  it('answers 400 for a malformed multipart body and 415 for multipart on JSON routes', async () => {
    const malformed = await call(app.url, 'POST', '/v1/image/edit/upload', {
      key: app.adminKey,
      rawBody: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error_code).toBe('9006');
    const form = new FormData();
    form.append('input', images.url('/shallow.png'));
    for (const path of ['/v1/image/edit', '/v1/keys']) {
      const response = await fetch(`${app.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.adminKey}` },
        body: form,
      });
      expect(response.status, path).toBe(415);
      expect(((await response.json()) as any).error_code).toBe('9005');
    }
  });

  it('tells a client that sends the image itself, or JSON, to the upload route to use multipart', async () => {
    for (const [type, body] of [
      ['image/png', await quadrantsImage({ format: 'png' })],
      ['application/octet-stream', Buffer.from('raw bytes')],
      ['application/json', Buffer.from(JSON.stringify({ input: images.url('/shallow.png') }))],
    ] as const) {
      const response = await call(app.url, 'POST', '/v1/image/edit/upload', {
        key: app.adminKey,
        rawBody: body,
        headers: { 'content-type': type },
      });
      expect(response.status, type).toBe(415);
      expect(response.body).toMatchObject({ error_code: '9005', error_type: 'general' });
      expect(response.body.error_message, type).toMatch(/multipart\/form-data with a `file` part/);
      expect(response.body.error_message, type).toMatch(/POST JSON to \/v1\/image\/edit/);
    }
  });
});
