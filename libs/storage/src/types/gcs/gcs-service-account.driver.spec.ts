/**
 * Contract test of the service-account `gcs` driver against a loopback fake of the Cloud Storage JSON API
 * (test/helpers/fake-gcs.ts: why a fake, and what it implements). Tests assert on the bytes the fake holds and the
 * requests it saw. The connect guard refuses (and records) any connection beyond 127.0.0.1: the last test proves
 * nothing tried to leave loopback (no token endpoint, no metadata server).
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServiceException } from '@app/common';
import { installConnectGuard, type ConnectGuard } from '../../../../../test/helpers/connect-guard';
import { bytesOf, FakeGcs, KEY, serviceAccount } from '../../../../../test/helpers/fake-gcs';
import { GcsServiceAccountDriver, type GcsServiceAccountDriverOptions } from './gcs-service-account.driver';

const fake = new FakeGcs();
const photos = () => fake.buckets.get('photos')!;
const seed = (names: string[]) => names.forEach((name) => fake.put(photos(), `shop/${name}`, Buffer.from(name)));

function driver(options: Partial<GcsServiceAccountDriverOptions> = {}): GcsServiceAccountDriver {
  return new GcsServiceAccountDriver({
    bucket: 'photos',
    prefix: 'shop',
    serviceAccount: KEY,
    endpoint: fake.url,
    pageSize: 2,
    maxRetries: 0,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<ServiceException> {
  const error: unknown = await promise.catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ServiceException);
  return error as ServiceException;
}

describe('GcsServiceAccountDriver', () => {
  let guard: ConnectGuard;
  beforeAll(async () => {
    guard = installConnectGuard(['127.0.0.1']);
    await fake.start();
  });
  afterAll(async () => {
    await fake.stop();
    guard.restore();
  });
  beforeEach(() => {
    fake.buckets.clear();
    fake.buckets.set('photos', new Map());
    fake.log.length = 0;
  });

  it('writes a buffer and reads the same bytes back, under the root prefix', async () => {
    const gcs = driver();
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0]);
    const result = await gcs.write('out/a.jpg', bytes, { contentType: 'image/jpeg' });
    expect(result).toEqual({
      path: 'out/a.jpg',
      key: 'shop/out/a.jpg',
      bucket: 'photos',
      uri: 'gs://photos/shop/out/a.jpg',
      size: 8,
    });
    expect(photos().get('shop/out/a.jpg')?.data).toEqual(bytes);
    const read = await gcs.read('out/a.jpg');
    expect(read).toMatchObject({ size: 8, contentType: 'image/jpeg' });
    expect(await bytesOf(read.stream)).toEqual(bytes);
    expect(fake.log[0]).toMatch(/^POST \/upload\/storage\/v1\/b\/photos\/o\?uploadType=multipart&name=shop%2Fout/);
  });

  it('streams a body through a resumable session', async () => {
    const chunks = Array.from({ length: 40 }, (_, index) => Buffer.alloc(16 * 1024, index));
    const result = await driver().write('big.bin', Readable.from(chunks), { contentType: 'image/png' });
    expect(result.size).toBe(40 * 16 * 1024);
    const stored = photos().get('shop/big.bin');
    // Digests, because toEqual walks a 640 KiB buffer byte by byte (seconds).
    const digest = (data?: Buffer) => data && createHash('sha256').update(data).digest('hex');
    expect(digest(stored?.data)).toBe(digest(Buffer.concat(chunks)));
    expect(stored?.contentType).toBe('image/png');
    expect(fake.log.filter((line) => line.includes('uploadType=resumable'))).toHaveLength(2);
  });

  it('leaves no object when the body fails mid-upload, and keeps the earlier one', async () => {
    const gcs = driver({ prefix: '' });
    await gcs.write('a.jpg', Buffer.from('earlier'));
    fake.receivedUploadBytes = 0;
    let pushed = 0;
    const body = new Readable({
      read() {
        if (pushed++ < 4) return void this.push(Buffer.alloc(64 * 1024, 7));
        // Fail only once the fake holds part of the body, so the upload really is under way.
        void vi
          .waitFor(() => expect(fake.receivedUploadBytes).toBeGreaterThan(0))
          .then(() => this.destroy(new Error('encoder crashed')));
      },
    });
    const error = await failure(gcs.write('a.jpg', body));
    expect(error.codeName).toBe('STORAGE_BACKEND_FAILED');
    await vi.waitFor(() => expect(fake.abortedUploads).toBe(1));
    expect(fake.cancelledSessions).toBe(1);
    expect(fake.sessions.size).toBe(0);
    expect(photos().get('a.jpg')?.data.toString()).toBe('earlier');
    expect((await bytesOf((await gcs.read('a.jpg')).stream)).toString()).toBe('earlier');
  });

  it('reports a missing object as STORAGE_OBJECT_NOT_FOUND and head as null', async () => {
    const gcs = driver();
    const error = await failure(gcs.read('nope.jpg'));
    expect(error).toMatchObject({ codeName: 'STORAGE_OBJECT_NOT_FOUND', retryable: false });
    expect(error.message).toBe('Object "nope.jpg" does not exist in storage.');
    expect(await gcs.head('nope.jpg')).toBeNull();
  });

  it('heads and deletes an object; deleting a missing one is fine', async () => {
    const gcs = driver();
    await gcs.write('x/y.png', Buffer.from('png'), { contentType: 'image/png' });
    const info = await gcs.head('x/y.png');
    expect(info).toMatchObject({ path: 'x/y.png', size: 3, contentType: 'image/png' });
    expect(info?.lastModified).toBeInstanceOf(Date);
    await gcs.delete('x/y.png');
    expect(photos().has('shop/x/y.png')).toBe(false);
    await expect(gcs.delete('x/y.png')).resolves.toBeUndefined();
  });

  it('lists a folder page by page, recursively or not, skipping folder markers', async () => {
    const files = ['1', '2', '3', '4', '5'].map((name) => `in/${name}.jpg`);
    seed([...files, 'in/sub/', 'in/sub/6.jpg', 'in/sub/deep/7.jpg', 'other/8.jpg']);
    const gcs = driver();
    const collect = async (recursive: boolean) => {
      const paths: string[] = [];
      for await (const info of gcs.list('in/', { recursive })) paths.push(info.path);
      return paths;
    };
    const listings = () => fake.log.filter((line) => line.startsWith('GET /storage/v1/b/photos/o?'));
    expect(await collect(false)).toEqual(files);
    const flatPages = listings();
    expect(flatPages).toHaveLength(3);
    expect(flatPages.every((line) => line.includes('delimiter=%2F') && line.includes('maxResults=2'))).toBe(true);
    expect(flatPages.slice(1).every((line) => line.includes('pageToken='))).toBe(true);
    fake.log.length = 0;
    expect(await collect(true)).toEqual([...files, 'in/sub/6.jpg', 'in/sub/deep/7.jpg']);
    expect(listings().filter((line) => !line.includes('delimiter'))).toHaveLength(4);
  });

  it('fetches the next page only when the caller gets there', async () => {
    seed(['a', 'b', 'c', 'd', 'e']);
    const iterator = driver().list('', { recursive: true })[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ path: 'a', size: 1 });
    expect(fake.log).toHaveLength(1);
    await iterator.return?.();
  });

  it('checks a reachable bucket and names a missing one', async () => {
    await expect(driver().check()).resolves.toBeUndefined();
    const error = await failure(driver({ bucket: 'gone' }).check());
    expect(error.codeName).toBe('STORAGE_UNREACHABLE');
    expect(error.message).toBe('Bucket "gone" does not exist.');
    for (const body of [Buffer.from('x'), Readable.from([Buffer.from('x')])]) {
      const written = await failure(driver({ bucket: 'gone' }).write('a.jpg', body));
      expect(written).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', message: error.message });
    }
  });

  it('reports refused credentials and missing permissions as STORAGE_UNREACHABLE, never with the key', async () => {
    const stranger = serviceAccount();
    const refused = await failure(driver({ serviceAccount: stranger }).check());
    expect(refused).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', message: 'The credentials were refused.' });
    fake.denied.add('photos');
    const denied = await failure(driver().read('a.jpg'));
    fake.denied.clear();
    expect(denied).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', retryable: false });
    for (const error of [refused, denied]) {
      expect(JSON.stringify({ ...error, message: error.message })).not.toMatch(/PRIVATE KEY|MII/);
    }
  });

  it('reports 5xx, throttling and network failures as STORAGE_BACKEND_FAILED, which may pass when retried', async () => {
    for (const status of [503, 500, 429, 408]) {
      fake.failNext = status;
      const error = await failure(driver().head('a.jpg'));
      expect(error, `HTTP ${status}`).toMatchObject({ codeName: 'STORAGE_BACKEND_FAILED', retryable: true });
    }
    // Nothing listens on loopback port 1: the connection is refused.
    const logged: string[] = [];
    const log = vi
      .spyOn(Logger.prototype, 'log')
      .mockImplementation((message: unknown) => void logged.push(String(message)));
    const offline = await failure(driver({ endpoint: 'http://127.0.0.1:1' }).head('a.jpg')).finally(() =>
      log.mockRestore(),
    );
    // The caller is told the same whatever the cause (refused, silent, unknown name); the log says which.
    expect(offline).toMatchObject({
      codeName: 'STORAGE_BACKEND_FAILED',
      message: 'Could not reach http://127.0.0.1:1/, or it did not answer.',
      retryable: true,
    });
    expect(logged.join('\n')).toContain('ECONNREFUSED');
  });

  it('refuses an endpoint its guard refuses, before any request', async () => {
    const resolve = () => Promise.reject(new ServiceException('FETCH_REFUSED', 'The address is not allowed.'));
    const error = await failure(driver({ guard: { resolve } }).write('a.jpg', Readable.from([Buffer.from('x')])));
    expect(error).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', message: 'The address is not allowed.' });
    expect(fake.log).toHaveLength(0);
  });

  // Last on purpose: every connection the tests above opened went to loopback (no token or metadata server).
  it('opened connections to loopback only', () => {
    expect(guard.allowed.length).toBeGreaterThan(0);
    expect(guard.refused).toEqual([]);
  });
});
