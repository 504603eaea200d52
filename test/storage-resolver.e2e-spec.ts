import { createServer, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { StorageResolver, type StorageDriver } from '@app/storage';
import { client } from './helpers/http';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/** A stream that sends `bytes` and then fails, as a dropped upstream would. */
function failingStream(bytes: number): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(Buffer.alloc(bytes, 1));
      } else this.destroy(new Error('upstream dropped'));
    },
  });
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function paths(iterable: AsyncIterable<{ path: string }>): Promise<string[]> {
  const found: string[] = [];
  for await (const object of iterable) found.push(object.path);
  return found.sort();
}

/** Storages made through the API, then used through the StorageResolver the editing services will use. */
describe('StorageResolver', () => {
  let s3: S3TestServer;
  let app: TestApp;
  let resolver: StorageResolver;
  const accountId = 1; // the default account, owner of the admin key

  beforeAll(async () => {
    s3 = await startS3Server(['assets', 'library']);
    app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
    resolver = app.app.get(StorageResolver);
    const api = client(app.url, app.adminKey);
    const credentials = { access_key: s3.accessKey, secret_access_key: s3.secretKey };
    for (const [name, bucket, path] of [
      ['assets', 'assets', 'root'],
      ['library', 'library', 'lib'],
    ]) {
      const res = await api.post('/v1/storage/storages', {
        name,
        type: 's3',
        parameters: { bucket, path, endpoint: s3.endpoint, credentials },
      });
      expect(res.status).toBe(200);
    }
  });

  afterAll(async () => {
    await app?.close();
    await s3?.stop();
  });

  it('writes, reads, heads and deletes through a reference, under the storage path', async () => {
    const target = await resolver.resolve(accountId, 'storage://assets/out/shoe.jpg', 'output');
    expect(target.storage).toMatchObject({ name: 'assets', type: 's3' });
    expect(target).toMatchObject({ path: 'out/shoe.jpg', isFolder: false });
    const bytes = Buffer.from('not really a jpeg, but bytes are bytes');
    const written = await target.driver.write(target.path, Readable.from([bytes]), { contentType: 'image/jpeg' });
    expect(written).toEqual({
      path: 'out/shoe.jpg',
      key: 'root/out/shoe.jpg',
      bucket: 'assets',
      uri: 's3://assets/root/out/shoe.jpg',
      size: bytes.length,
    });
    // The bytes are in the bucket, at the key below the storage's path.
    const stored = await s3.client.send(new GetObjectCommand({ Bucket: 'assets', Key: 'root/out/shoe.jpg' }));
    expect(Buffer.from(await stored.Body!.transformToByteArray())).toEqual(bytes);
    expect(stored.ContentType).toBe('image/jpeg');

    const read = await target.driver.read(target.path);
    expect(read.size).toBe(bytes.length);
    expect(read.contentType).toBe('image/jpeg');
    expect(await collect(read.stream)).toEqual(bytes);
    expect(await target.driver.head(target.path)).toMatchObject({ path: 'out/shoe.jpg', size: bytes.length });

    await target.driver.delete(target.path);
    expect(await target.driver.head(target.path)).toBeNull();
    await expect(target.driver.read(target.path)).rejects.toMatchObject({ codeName: 'STORAGE_OBJECT_NOT_FOUND' });
  });

  it.each([
    ['a small body', 1024],
    ['a multipart body', 6 * 1024 * 1024],
  ])('leaves no object when %s fails mid-way, and keeps the earlier object', async (_name, bytes) => {
    const { driver, path } = await resolver.resolve(accountId, `storage://assets/atomic-${bytes}.bin`, 'output');
    await driver.write(path, Buffer.from('earlier version'));
    // The caller learns the body's own failure, not a storage error.
    await expect(driver.write(path, failingStream(bytes))).rejects.toThrow('upstream dropped');
    const fresh = `fresh-${bytes}.bin`;
    await expect(driver.write(fresh, failingStream(bytes))).rejects.toThrow('upstream dropped');
    expect(await driver.head(fresh)).toBeNull();
    expect((await collect((await driver.read(path)).stream)).toString()).toBe('earlier version');
  });

  describe('lists a folder of 1,050 objects in nested sub-folders, page by page', () => {
    let driver: StorageDriver;
    const layout: Record<string, number> = { '': 25, 'a/': 500, 'a/b/': 300, 'c/': 225 };
    const expected = (folders: string[]) =>
      folders
        .flatMap((folder) =>
          Array.from({ length: layout[folder] }, (_, i) => `${folder}img-${String(i).padStart(4, '0')}.jpg`),
        )
        .sort();

    beforeAll(async () => {
      const keys = expected(Object.keys(layout)).map((path) => `lib/${path}`);
      // Folder markers, as consoles create them, and a sibling prefix that must not leak in.
      keys.push('lib/c/', 'lib/a/b/', 'library-sibling/x.jpg', 'lib-other/y.jpg');
      for (let i = 0; i < keys.length; i += 50) {
        await Promise.all(
          keys
            .slice(i, i + 50)
            .map((Key) =>
              s3.client.send(
                new PutObjectCommand({ Bucket: 'library', Key, Body: Key.endsWith('/') ? new Uint8Array(0) : 'x' }),
              ),
            ),
        );
      }
      driver = (await resolver.resolve(accountId, 'storage://library/', 'input')).driver;
    }, 120_000);

    it('recursively: every file once, markers skipped', async () => {
      const found = await paths(driver.list('', { recursive: true }));
      expect(found).toHaveLength(1050);
      expect(found).toEqual(expected(['', 'a/', 'a/b/', 'c/']));
    });

    it('not recursively: the folder’s own files only', async () => {
      expect(await paths(driver.list(''))).toEqual(expected(['']));
      expect(await paths(driver.list('a/'))).toEqual(expected(['a/']));
      expect(await paths(driver.list('a'))).toEqual(expected(['a/']));
      expect(await paths(driver.list('a/', { recursive: true }))).toEqual(expected(['a/', 'a/b/']));
      expect(await paths(driver.list('missing/', { recursive: true }))).toEqual([]);
    });
  });

  it('refuses malformed references and unknown names with 422 naming the field', async () => {
    const cases: [string, RegExp][] = [
      ['storage://nowhere/a.jpg', /names storage "nowhere", which does not exist/],
      ['storage://assets/../secret.jpg', /segments/],
      ['storage:///a.jpg', /not a valid storage name/],
    ];
    for (const [reference, message] of cases) {
      const error = await resolver.resolve(accountId, reference, 'input').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceException);
      expect(error).toMatchObject({ codeName: 'STORAGE_REFERENCE_INVALID', status: 422 });
      expect((error as ServiceException).details.input).toEqual([expect.stringMatching(message)]);
    }
    // Another account's storage name is unknown here.
    await expect(resolver.resolve(999, 'storage://assets/a.jpg', 'input')).rejects.toMatchObject({
      codeName: 'STORAGE_REFERENCE_INVALID',
    });
  });

  it('answers an unknown or malformed storage reference over HTTP as a validation error (1306) at the field', async () => {
    const api = client(app.url, app.adminKey);
    for (const [body, field, message] of [
      [{ input: 'storage://nowhere/a.jpg' }, 'input', /names storage "nowhere", which does not exist/],
      [
        { input: 'storage://assets/a.jpg', output: 'storage://nowhere/out/' },
        'output.destination',
        /names storage "nowhere", which does not exist/,
      ],
    ] as const) {
      const res = await api.post('/v1/image/edit', { ...body, operations: { resizing: { width: 100 } } });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body).toMatchObject({ error_code: '1306', error_type: 'validation' });
      expect(res.body.error_message).toMatch(message);
      expect(Object.keys(res.body.error_details)).toEqual([field]);
      expect(res.body.error_details[field]).toEqual([expect.stringMatching(message)]);
    }
  });

  describe('web folders', () => {
    let server: Server;
    let base: string;
    const requests: string[] = [];

    beforeAll(async () => {
      server = createServer((req, res) => {
        requests.push(`${req.method} ${req.url}`);
        if (req.url === '/shop/red%20shoe.png') res.writeHead(200, { 'content-type': 'image/png' }).end('PNGDATA');
        else res.writeHead(404).end();
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}/shop`;
      const res = await client(app.url, app.adminKey).post('/v1/storage/storages', {
        name: 'web',
        type: 'web_folder',
        parameters: { base_url: base },
      });
      expect(res.status).toBe(200);
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    it('reads base_url + path with the path encoded, and refuses to write, list or delete', async () => {
      const { driver, path } = await resolver.resolve(accountId, 'storage://web/red shoe.png', 'input');
      expect((await collect((await driver.read(path)).stream)).toString()).toBe('PNGDATA');
      expect(requests).toContain('GET /shop/red%20shoe.png');
      await expect(driver.read('missing.png')).rejects.toMatchObject({ codeName: 'STORAGE_OBJECT_NOT_FOUND' });
      for (const attempt of [
        () => driver.write('x.png', Buffer.from('x')),
        () => driver.delete('x.png'),
        () => paths(driver.list('')),
      ]) {
        await expect(attempt()).rejects.toMatchObject({ codeName: 'STORAGE_OPERATION_UNSUPPORTED', status: 422 });
      }
    });
  });
});
