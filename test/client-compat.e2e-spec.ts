/**
 * Clients of the hosted API family work by changing only their base URL (docs/api-contract.md, "General"): an empty body
 * sent with `Content-Type: application/json` is no body, and `null` for an optional member means absent. Black
 * box, over real HTTP.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cmykJpeg, gradientJpeg } from './fixtures/images';
import { fetchResult } from './helpers/edit-client';
import { call, client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
let images: ImageServer;
let s3: S3TestServer;

beforeAll(async () => {
  images = await startImageServer();
  s3 = await startS3Server(['catalogue']);
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  images.put('/photo.jpg', await gradientJpeg(200, 100));
  images.put('/cmyk.jpg', await cmykJpeg());
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
  await s3?.stop();
});

function s3Parameters(overrides: Record<string, unknown> = {}) {
  return {
    bucket: 'catalogue',
    endpoint: s3.endpoint,
    credentials: { access_key: s3.accessKey, secret_access_key: s3.secretKey },
    ...overrides,
  };
}

/** A request with `Content-Type: application/json` and nothing after the headers, as fetch sends it. */
function bodiless(method: string, path: string) {
  return fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${app.adminKey}`, 'content-type': 'application/json' },
  });
}

describe('an empty body with Content-Type: application/json', () => {
  it('is no body on DELETE /v1/storage/storages/{id}, with and without Content-Length: 0', async () => {
    for (const name of ['empty-1', 'empty-2']) {
      const created = await client(app.url, app.adminKey).post('/v1/storage/storages', {
        name,
        type: 's3',
        parameters: s3Parameters(),
      });
      expect(created.status, created.text).toBe(200);
      const path = `/v1/storage/storages/${created.body.data.id}`;
      // No body at all, and an empty one (fetch then sends Content-Length: 0).
      const res =
        name === 'empty-1'
          ? await bodiless('DELETE', path)
          : await fetch(`${app.url}${path}`, {
              method: 'DELETE',
              headers: { authorization: `Bearer ${app.adminKey}`, 'content-type': 'application/json' },
              body: '',
            });
      expect(res.status, await res.text()).toBe(200);
      expect((await client(app.url, app.adminKey).get(path)).status).toBe(404);
    }
  });

  it('is no body on DELETE /v1/keys/{id} and on GET', async () => {
    const created = await client(app.url, app.adminKey).post('/v1/keys', { name: 'k', scopes: ['storage'] });
    expect(created.status).toBe(200);
    const res = await bodiless('DELETE', `/v1/keys/${created.body.data.id}`);
    expect(res.status, await res.text()).toBe(200);
    const listed = await bodiless('GET', '/v1/keys');
    expect(listed.status).toBe(200);
  });

  it('on a POST that needs a body, is answered as a POST without a body: 422, not 400', async () => {
    for (const path of ['/v1/keys', '/v1/storage/storages']) {
      const empty = await bodiless('POST', path);
      const none = await call(app.url, 'POST', path, { key: app.adminKey });
      expect(empty.status).toBe(422);
      expect(await empty.json()).toEqual(none.body);
      expect(none.body.error_details).toEqual({ body: ['must be a JSON object'] });
    }
    const edit = await bodiless('POST', '/v1/image/edit');
    const editNone = await call(app.url, 'POST', '/v1/image/edit', { key: app.adminKey });
    expect(edit.status).toBe(422);
    expect(await edit.json()).toEqual(editNone.body);
  });
});

describe('null for an optional member', () => {
  it('is absent in output.format: {"type": "webp", "quality": null, "progressive": null} gives a WebP', async () => {
    const res = await client(app.url, app.adminKey).post('/v1/image/edit', {
      input: images.url('/photo.jpg'),
      operations: null,
      output: { destination: null, format: { type: 'webp', quality: null, progressive: null }, metadata: null },
    });
    expect(res.status, res.text).toBe(200);
    const bytes = await fetchResult(app, res.body.data.output.tmp_url);
    expect((await sharp(bytes).metadata()).format).toBe('webp');
  });

  it('is absent in operations: a null family, and null members of the families', async () => {
    const res = await client(app.url, app.adminKey).post('/v1/image/edit', {
      input: images.url('/photo.jpg'),
      operations: {
        restorations: null,
        background: null,
        padding: null,
        privacy: null,
        style_transfer: null,
        resizing: { width: 50, height: 25, fit: null },
        adjustments: { exposure: null, hdr: null },
      },
      output: { format: 'png' },
    });
    expect(res.status, res.text).toBe(200);
    const meta = await sharp(await fetchResult(app, res.body.data.output.tmp_url)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 50, 25]);
  });

  it.each([undefined, 'application/json'])('is absent in the upload data part (%s)', async (type) => {
    const data = JSON.stringify({
      operations: { resizing: { width: 40, height: 20, fit: null } },
      output: { format: { type: 'webp', quality: null, progressive: null } },
    });
    const head = `Content-Disposition: form-data; name="data"${type ? `\r\nContent-Type: ${type}` : ''}`;
    const body = Buffer.concat([
      Buffer.from(
        '--b0\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n',
      ),
      await gradientJpeg(200, 100),
      Buffer.from(`\r\n--b0\r\n${head}\r\n\r\n${data}\r\n--b0--\r\n`),
    ]);
    const res = await call(app.url, 'POST', '/v1/image/edit/upload', {
      key: app.adminKey,
      rawBody: body,
      headers: { 'content-type': 'multipart/form-data; boundary=b0' },
    });
    expect(res.status, res.text).toBe(200);
    const meta = await sharp(await fetchResult(app, res.body.data.output.tmp_url)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 40, 20]);
  });

  it('is absent in a batch body and an async one (webhook_url: null)', async () => {
    const api = client(app.url, app.adminKey);
    const batch = await api.post('/v1/image/edit/batch', {
      input: [images.url('/photo.jpg')],
      operations: { resizing: { width: 20, height: null } },
      output: { destination: null, format: { type: 'webp', quality: null, progressive: null }, metadata: null },
      webhook_url: null,
    });
    expect(batch.status, batch.text).toBe(200);
    const task = await api.post('/v1/image/edit/async', {
      input: images.url('/photo.jpg'),
      operations: { padding: null },
      output: { format: { type: 'jpeg', quality: null } },
      webhook_url: null,
    });
    expect(task.status, task.text).toBe(200);
  });

  it('is absent when a storage is created ("path": null) and a key (quota: null)', async () => {
    const api = client(app.url, app.adminKey);
    const storage = await api.post('/v1/storage/storages', {
      name: 'null-path',
      type: 's3',
      parameters: s3Parameters({ path: null, region: null }),
    });
    expect(storage.status, storage.text).toBe(200);
    expect(storage.body.data.parameters).toEqual({
      bucket: 'catalogue',
      endpoint: s3.endpoint,
      credentials: { access_key: s3.accessKey },
    });
    const key = await api.post('/v1/keys', {
      name: 'k',
      scopes: ['storage'],
      quota: null,
      account: null,
      rate_limit: null,
    });
    expect(key.status, key.text).toBe(200);
    expect(key.body.data.quota).toBeNull();
  });

  it('still removes a member in a PATCH', async () => {
    const api = client(app.url, app.adminKey);
    const created = await api.post('/v1/storage/storages', {
      name: 'patched',
      type: 's3',
      parameters: s3Parameters({ path: 'products' }),
    });
    expect(created.status).toBe(200);
    expect(created.body.data.parameters.path).toBe('products');
    const patched = await api.patch(`/v1/storage/storages/${created.body.data.id}`, { parameters: { path: null } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.parameters.path).toBeUndefined();
  });
});

describe('object forms other clients write', () => {
  /** The bytes of an edit of `/path`, which must succeed. */
  async function rendered(path: string, operations: unknown, output: unknown): Promise<Buffer> {
    const res = await client(app.url, app.adminKey).post('/v1/image/edit', {
      input: images.url(path),
      operations,
      output,
    });
    expect(res.status, res.text).toBe(200);
    return fetchResult(app, res.body.data.output.tmp_url);
  }

  it('fit {"type": "crop"} without crop is the centre crop', async () => {
    const output = { format: 'png' };
    const [typed, empty, named] = await Promise.all([
      rendered('/photo.jpg', { resizing: { width: 80, height: 80, fit: { type: 'crop' } } }, output),
      rendered('/photo.jpg', { resizing: { width: 80, height: 80, fit: {} } }, output),
      rendered('/photo.jpg', { resizing: { width: 80, height: 80, fit: { type: 'crop', crop: 'center' } } }, output),
    ]);
    const meta = await sharp(typed).metadata();
    expect([meta.width, meta.height]).toEqual([80, 80]);
    expect(typed.equals(named)).toBe(true);
    expect(empty.equals(named)).toBe(true);
  });

  it('metadata.color_space {"type": "RGB"} is "RGB": CMYK input leaves as sRGB', async () => {
    const [object, name] = await Promise.all([
      rendered('/cmyk.jpg', undefined, { format: 'jpeg', metadata: { color_space: { type: 'RGB' } } }),
      rendered('/cmyk.jpg', undefined, { format: 'jpeg', metadata: { color_space: 'RGB' } }),
    ]);
    const meta = await sharp(object).metadata();
    expect([meta.channels, meta.space]).toEqual([3, 'srgb']);
    expect(object.equals(name)).toBe(true);
  });

  it('still refuses a profile on an RGB object', async () => {
    const res = await client(app.url, app.adminKey).post('/v1/image/edit', {
      input: images.url('/photo.jpg'),
      output: { format: 'jpeg', metadata: { color_space: { type: 'RGB', color_profile: 'ISO_Coated' } } },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.error_details)).toEqual(['output.metadata.color_space.color_profile']);
  });
});
