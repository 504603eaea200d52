import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUADRANT_COLOURS, quadrantsImage } from './fixtures/images';
import { editImage } from './helpers/edit-client';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * Image edits that read from and write to connected storages (docs/api-contract.md, "Image edit": the output rules and
 * "Storage"), over HTTP against a real S3-compatible server (s3rver). The bytes in the bucket are read back with
 * the test's own S3 client and must be the image the response describes.
 */

let s3: S3TestServer;
let app: TestApp;
let images: ImageServer;
let photo: Buffer;

/** Storage `media`: bucket `photos` below the path `shop`. Storage `plain`: bucket `exports`, no path. */
const MEDIA = { bucket: 'photos', prefix: 'shop' };
const PLAIN = { bucket: 'exports' };

async function putObject(bucket: string, key: string, body: Buffer): Promise<void> {
  await s3.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

async function getObject(bucket: string, key: string): Promise<{ bytes: Buffer; contentType?: string }> {
  const stored = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return { bytes: Buffer.from(await stored.Body!.transformToByteArray()), contentType: stored.ContentType };
}

async function exists(bucket: string, key: string): Promise<boolean> {
  try {
    await s3.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch {
    return false;
  }
}

function s3Storage(name: string, bucket: string, path?: string) {
  return {
    name,
    type: 's3',
    parameters: {
      bucket,
      ...(path !== undefined && { path }),
      endpoint: s3.endpoint,
      credentials: { access_key: s3.accessKey, secret_access_key: s3.secretKey },
    },
  };
}

async function createStorage(key: string, body: object): Promise<void> {
  const res = await client(app.url, key).post('/v1/storage/storages', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  s3 = await startS3Server([MEDIA.bucket, PLAIN.bucket]);
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', MAX_INPUT_PIXELS: '20000000' });
  await createStorage(app.adminKey, s3Storage('media', MEDIA.bucket, MEDIA.prefix));
  await createStorage(app.adminKey, s3Storage('plain', PLAIN.bucket));
  await createStorage(app.adminKey, {
    name: 'web',
    type: 'web_folder',
    parameters: { base_url: images.url('/catalogue') },
  });
  photo = await quadrantsImage({ format: 'jpeg', width: 400, height: 300 });
  await putObject(MEDIA.bucket, 'shop/path/photo.jpg', photo);
  await putObject(PLAIN.bucket, 'in/red shoe.png', await quadrantsImage({ format: 'png', width: 64, height: 48 }));
  images.put('/catalogue/shoe.png', await quadrantsImage({ format: 'png', width: 120, height: 80 }));
  images.put('/catalogue/sub/boot.webp', await quadrantsImage({ format: 'webp', width: 80, height: 120 }));
  images.put('/landscape.jpg', photo);
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
  await s3?.stop();
});

let served = 0;
/** A fresh input URL with the photo behind it, so that its hits belong to one request only. */
function freshInput(): { path: string; url: string } {
  const path = `/fresh-${++served}.jpg`;
  images.put(path, photo);
  return { path, url: images.url(path) };
}

function edit(body: unknown, key = app.adminKey) {
  return editImage(app, body, key);
}

/** The stored object at `bucket`/`key` is the image `output` describes: format, size, and the quadrants. */
async function expectStored(bucket: string, key: string, output: Record<string, unknown>): Promise<void> {
  const { bytes, contentType } = await getObject(bucket, key);
  expect(contentType).toBe(output.mime);
  const meta = await sharp(bytes).metadata();
  const format = meta.format === 'heif' ? 'avif' : meta.format;
  expect({ format, width: meta.width, height: meta.height }).toEqual({
    format: output.format,
    width: output.width,
    height: output.height,
  });
  // The top-left quadrant is red: the stored bytes are this picture, not some other file.
  const { data } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [r, g, b] = data;
  expect(Math.abs(r - QUADRANT_COLOURS.topLeft[0]) + g + b).toBeLessThan(60);
}

describe('input from a storage, output to a storage file', () => {
  it('reads storage://media/path/photo.jpg and writes storage://media/out/result.webp as WebP (from the extension)', async () => {
    const response = await edit({
      input: 'storage://media/path/photo.jpg',
      operations: { resizing: { width: 200, fit: 'bounds' } },
      output: 'storage://media/out/result.webp',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.input).toEqual({
      ext: 'jpg',
      mps: 0.12,
      mime: 'image/jpeg',
      format: 'jpeg',
      width: 400,
      height: 300,
    });
    expect(response.body.data.output).toEqual({
      ext: 'webp',
      mps: 0.03,
      mime: 'image/webp',
      format: 'webp',
      width: 200,
      height: 150,
      tmp_url: '',
      object_key: 'shop/out/result.webp',
      object_bucket: 'photos',
      object_uri: 's3://photos/shop/out/result.webp',
      service_storage_uri: 'storage://media/out/result.webp',
      claid_storage_uri: 'storage://media/out/result.webp',
    });
    await expectStored('photos', 'shop/out/result.webp', response.body.data.output);
  });

  it.each([
    ['result.png', 'png', 'png'],
    ['result.jpeg', 'jpeg', 'jpg'],
    ['result.avif', 'avif', 'avif'],
    ['result.tif', 'tiff', 'tiff'],
  ])('takes the format from the extension: %s is %s', async (file, format, ext) => {
    const response = await edit({
      input: 'storage://media/path/photo.jpg',
      output: { destination: `storage://plain/ext/${file}` },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({ format, object_key: `ext/${file}`, object_bucket: 'exports' });
    expect(response.body.data.output.ext).toBe(ext);
    await expectStored('exports', `ext/${file}`, response.body.data.output);
  });

  it('answers 422 at output.destination when the extension and the format disagree, before reading the input', async () => {
    const url = images.url('/mismatch.jpg');
    const response = await edit({
      input: url,
      output: { destination: 'storage://plain/x/result.webp', format: 'png' },
    });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual(['output.destination']);
    expect(images.hits.get('/mismatch.jpg') ?? 0).toBe(0);
    const agreeing = await edit({
      input: 'storage://media/path/photo.jpg',
      output: { destination: 'storage://plain/x/result.jpg', format: { type: 'jpeg', quality: 70 } },
    });
    expect(agreeing.status).toBe(200);
  });

  it('answers 422 at output.destination for an extension Atelier does not write (.gif)', async () => {
    const response = await edit({ input: 'storage://media/path/photo.jpg', output: 'storage://plain/x/photo.gif' });
    expect(response.status).toBe(422);
    expect(response.body.error_details['output.destination'][0]).toMatch(/\.gif files cannot be written/);
  });

  it('writes to a storage without a path at the key itself', async () => {
    const response = await edit({
      input: 'storage://plain/in/red shoe.png',
      output: { destination: 'storage://plain/edited/shoe.png', format: 'png' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({
      tmp_url: '',
      object_key: 'edited/shoe.png',
      object_bucket: 'exports',
      object_uri: 's3://exports/edited/shoe.png',
      service_storage_uri: 'storage://plain/edited/shoe.png',
      claid_storage_uri: 'storage://plain/edited/shoe.png',
      width: 64,
      height: 48,
    });
    await expectStored('exports', 'edited/shoe.png', response.body.data.output);
  });

  it('replaces an object that is already there', async () => {
    await putObject(PLAIN.bucket, 'again/photo.jpg', Buffer.from('an older file'));
    const response = await edit({ input: images.url('/landscape.jpg'), output: 'storage://plain/again/photo.jpg' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    await expectStored('exports', 'again/photo.jpg', response.body.data.output);
  });
});

describe('output to a storage folder: the input base name with the new extension', () => {
  it('storage://media/out/ with format png: shop/out/photo.png', async () => {
    const response = await edit({
      input: 'storage://media/path/photo.jpg',
      operations: { resizing: { width: 100, height: 100 } },
      output: { destination: 'storage://media/out/', format: 'png' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toEqual({
      ext: 'png',
      mps: 0.01,
      mime: 'image/png',
      format: 'png',
      width: 100,
      height: 100,
      tmp_url: '',
      object_key: 'shop/out/photo.png',
      object_bucket: 'photos',
      object_uri: 's3://photos/shop/out/photo.png',
      service_storage_uri: 'storage://media/out/photo.png',
      claid_storage_uri: 'storage://media/out/photo.png',
    });
    await expectStored('photos', 'shop/out/photo.png', response.body.data.output);
  });

  it('without a format the input format is kept: photo.jpg', async () => {
    const response = await edit({ input: 'storage://media/path/photo.jpg', output: 'storage://plain/same/' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({
      format: 'jpeg',
      object_key: 'same/photo.jpg',
      service_storage_uri: 'storage://plain/same/photo.jpg',
      claid_storage_uri: 'storage://plain/same/photo.jpg',
    });
    await expectStored('exports', 'same/photo.jpg', response.body.data.output);
  });

  it('the storage root folder: storage://plain/ writes "red shoe.webp" at the top', async () => {
    const response = await edit({
      input: 'storage://plain/in/red shoe.png',
      output: { destination: 'storage://plain/', format: 'webp' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({
      object_key: 'red shoe.webp',
      object_uri: 's3://exports/red shoe.webp',
      service_storage_uri: 'storage://plain/red shoe.webp',
      claid_storage_uri: 'storage://plain/red shoe.webp',
    });
    await expectStored('exports', 'red shoe.webp', response.body.data.output);
  });

  it('an input URL names the file by its last path segment, decoded', async () => {
    images.put('/shots/blue%20boot.final.jpeg', await quadrantsImage({ format: 'jpeg' }));
    const response = await edit({
      input: images.url('/shots/blue%20boot.final.jpeg?size=large'),
      output: { destination: 'storage://media/from-url/', format: 'avif' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({
      format: 'avif',
      object_key: 'shop/from-url/blue boot.final.avif',
      service_storage_uri: 'storage://media/from-url/blue boot.final.avif',
      claid_storage_uri: 'storage://media/from-url/blue boot.final.avif',
    });
    await expectStored('photos', 'shop/from-url/blue boot.final.avif', response.body.data.output);
  });

  it('an uploaded file keeps its own base name', async () => {
    const form = new FormData();
    form.append('file', new Blob([await quadrantsImage({ format: 'png', width: 64, height: 48 })]), 'sneaker.png');
    form.append(
      'data',
      JSON.stringify({
        operations: { resizing: { width: '50%' } },
        output: { destination: 'storage://media/uploads/', format: 'webp' },
      }),
    );
    const response = await fetch(`${app.url}/v1/image/edit/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.adminKey}` },
      body: form,
    });
    const body = (await response.json()) as { data: { output: Record<string, unknown> } };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data.output).toMatchObject({
      format: 'webp',
      width: 32,
      height: 24,
      tmp_url: '',
      object_key: 'shop/uploads/sneaker.webp',
      object_bucket: 'photos',
      object_uri: 's3://photos/shop/uploads/sneaker.webp',
      service_storage_uri: 'storage://media/uploads/sneaker.webp',
      claid_storage_uri: 'storage://media/uploads/sneaker.webp',
    });
    await expectStored('photos', 'shop/uploads/sneaker.webp', body.data.output);
  });
});

describe('web folders', () => {
  it('reads an input from a web_folder storage (base_url + path)', async () => {
    const before = images.hits.get('/catalogue/shoe.png') ?? 0;
    const response = await edit({ input: 'storage://web/shoe.png', output: 'storage://plain/from-web/' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(images.hits.get('/catalogue/shoe.png')).toBe(before + 1);
    expect(response.body.data.input).toMatchObject({ format: 'png', width: 120, height: 80 });
    expect(response.body.data.output).toMatchObject({ object_key: 'from-web/shoe.png', width: 120, height: 80 });
    await expectStored('exports', 'from-web/shoe.png', response.body.data.output);
  });

  it('reads a web_folder file in a sub-folder into the temporary bucket', async () => {
    const response = await edit({
      input: 'storage://web/sub/boot.webp',
      operations: { resizing: { height: 60, fit: 'bounds' } },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({ format: 'webp', width: 40, height: 60 });
    expect(response.body.data.output.tmp_url).not.toBe('');
    expect(response.body.data.output.object_key).toBeUndefined();
  });

  it('answers 400 for a web_folder file that does not exist', async () => {
    const response = await edit({ input: 'storage://web/missing.png' });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error_code).toBe('1305');
  });

  it.each([['storage://web/out/result.png'], ['storage://web/out/']])(
    'refuses %s as an output destination with 422 before reading the input',
    async (destination) => {
      const { path, url } = freshInput();
      const response = await edit({ input: url, output: destination });
      expect(response.status, JSON.stringify(response.body)).toBe(422);
      expect(response.body).toMatchObject({ error_code: '1304', error_type: 'storage' });
      expect(Object.keys(response.body.error_details)).toEqual(['output.destination']);
      expect(images.hits.get(path) ?? 0).toBe(0);
    },
  );

  it('refuses it the same way (one rule, one code) in an asynchronous edit and a batch', async () => {
    const api = client(app.url, app.adminKey);
    const { url } = freshInput();
    for (const [route, body] of [
      ['/v1/image/edit/async', { input: url, output: 'storage://web/out/result.png' }],
      ['/v1/image/edit/batch', { input: [url], output: 'storage://web/out/' }],
    ] as const) {
      const response = await api.post(route, body);
      expect(response.status, JSON.stringify(response.body)).toBe(422);
      expect(response.body, route).toMatchObject({ error_code: '1304', error_type: 'storage' });
      expect(Object.keys(response.body.error_details)).toEqual(['output.destination']);
    }
    // a web folder as a batch's folder input: the same code as its driver's listing
    const listed = await api.post('/v1/image/edit/batch', { input: 'storage://web/sub/' });
    expect(listed.status, JSON.stringify(listed.body)).toBe(422);
    expect(listed.body).toMatchObject({ error_code: '1304', error_type: 'storage' });
    expect(Object.keys(listed.body.error_details)).toEqual(['input']);
    // and the extension against the format, as an edit checks it
    const mismatch = await api.post('/v1/image/edit/async', {
      input: url,
      output: { destination: 'storage://plain/out/result.png', format: 'webp' },
    });
    expect(mismatch.status, JSON.stringify(mismatch.body)).toBe(422);
    expect(mismatch.body.error_details['output.destination'].join(' ')).toMatch(/png.*webp/);
  });
});

describe('a storage changed through the API', () => {
  it('is seen by the next edit at once: renamed, its prefix moved, then deleted', async () => {
    const api = client(app.url, app.adminKey);
    const created = await api.post('/v1/storage/storages', s3Storage('moving', MEDIA.bucket, MEDIA.prefix));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.data.id as number;
    // Used once, so that this process has looked the storage up (LOOKUP_CACHE_MS keeps it) before it changes.
    expect((await edit({ input: 'storage://moving/path/photo.jpg' })).status).toBe(200);

    expect((await api.patch(`/v1/storage/storages/${id}`, { name: 'moved' })).status).toBe(200);
    const oldName = await edit({ input: 'storage://moving/path/photo.jpg' });
    expect(oldName.status, JSON.stringify(oldName.body)).toBe(422);
    expect(oldName.body.error_details.input.join(' ')).toContain('moving');
    expect((await edit({ input: 'storage://moved/path/photo.jpg' })).status).toBe(200);

    // The prefix now points elsewhere: the same path names an object that is not there.
    expect((await api.patch(`/v1/storage/storages/${id}`, { parameters: { path: 'elsewhere' } })).status).toBe(200);
    const moved = await edit({ input: 'storage://moved/path/photo.jpg' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(400);
    expect(moved.body).toMatchObject({ error_code: '1305' });

    expect((await api.delete(`/v1/storage/storages/${id}`)).status).toBe(200);
    const gone = await edit({ input: 'storage://moved/path/photo.jpg' });
    expect(gone.status, JSON.stringify(gone.body)).toBe(422);
    expect(Object.keys(gone.body.error_details)).toEqual(['input']);
  });
});

describe('refusals', () => {
  it('answers 400 "1305" for a storage object that does not exist, and writes nothing', async () => {
    const response = await edit({ input: 'storage://media/path/missing.jpg', output: 'storage://plain/never/' });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body).toMatchObject({ error_code: '1305', error_type: 'storage' });
    expect(await exists('exports', 'never/missing.jpg')).toBe(false);
  });

  it('answers 422 at input for an unknown storage name', async () => {
    const response = await edit({ input: 'storage://nowhere/photo.jpg' });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual(['input']);
    expect(response.body.error_details.input.join(' ')).toContain('nowhere');
  });

  it('answers 422 at output.destination for an unknown storage name, without reading the input', async () => {
    const { path, url } = freshInput();
    const response = await edit({ input: url, output: 'storage://nowhere/out/' });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual(['output.destination']);
    expect(images.hits.get(path) ?? 0).toBe(0);
  });

  it('answers 422 at output.destination for an http URL destination, without reading the input', async () => {
    const { path, url } = freshInput();
    const response = await edit({ input: url, output: { destination: 'https://example.com/out.jpg' } });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual(['output.destination']);
    expect(images.hits.get(path) ?? 0).toBe(0);
  });

  it.each([['storage://media/path/'], ['storage://media/']])(
    'answers 422 at input for the folder %s',
    async (input) => {
      const response = await edit({ input });
      expect(response.status, JSON.stringify(response.body)).toBe(422);
      expect(response.body).toMatchObject({ error_code: '9000', error_type: 'validation' });
      expect(Object.keys(response.body.error_details)).toEqual(['input']);
    },
  );

  it('answers 422 at input for a path that leaves the storage', async () => {
    const response = await edit({ input: 'storage://media/../photos/shop/path/photo.jpg' });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual(['input']);
  });
});

describe("another account's storages", () => {
  let acmeKey: string;

  beforeAll(async () => {
    const created = await client(app.url, app.adminKey).post('/v1/keys', {
      name: 'acme editor',
      scopes: ['image_editing', 'storage'],
      account: 'acme',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    acmeKey = created.body.data.key;
  });

  it('are not visible: the default account storage name is unknown to acme, as input and as output', async () => {
    const input = await edit({ input: 'storage://media/path/photo.jpg' }, acmeKey);
    expect(input.status, JSON.stringify(input.body)).toBe(422);
    expect(Object.keys(input.body.error_details)).toEqual(['input']);
    const { path, url } = freshInput();
    const output = await edit({ input: url, output: 'storage://plain/acme/' }, acmeKey);
    expect(output.status, JSON.stringify(output.body)).toBe(422);
    expect(Object.keys(output.body.error_details)).toEqual(['output.destination']);
    expect(images.hits.get(path) ?? 0).toBe(0);
    expect(await exists('exports', `acme${path}`)).toBe(false);
  });

  it("resolve to the caller's own storage when both accounts use one name", async () => {
    await createStorage(acmeKey, s3Storage('media', PLAIN.bucket, 'acme'));
    await putObject(
      PLAIN.bucket,
      'acme/path/photo.jpg',
      await quadrantsImage({ format: 'png', width: 40, height: 20 }),
    );
    const response = await edit({ input: 'storage://media/path/photo.jpg', output: 'storage://media/out/' }, acmeKey);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.input).toMatchObject({ format: 'png', width: 40, height: 20 });
    expect(response.body.data.output).toMatchObject({
      object_key: 'acme/out/photo.png',
      object_bucket: 'exports',
      service_storage_uri: 'storage://media/out/photo.png',
      claid_storage_uri: 'storage://media/out/photo.png',
    });
    await expectStored('exports', 'acme/out/photo.png', response.body.data.output);
    // The default account's storage of the same name still reads its own bucket.
    const own = await edit({ input: 'storage://media/path/photo.jpg' });
    expect(own.body.data.input).toMatchObject({ format: 'jpeg', width: 400, height: 300 });
  });
});
