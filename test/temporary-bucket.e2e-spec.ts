import { existsSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPORARY_FOLDER, TemporaryBucket } from '@app/storage';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('rest of a png')]);

describe('temporary bucket, embedded mode (local disk served by the API)', () => {
  let app: TestApp;
  let bucket: TemporaryBucket;

  beforeAll(async () => {
    app = await startTestApp({ TEMP_SWEEP_INTERVAL_SECONDS: '1', PUBLIC_BASE_URL: 'http://127.0.0.1:1' });
    bucket = app.app.get(TemporaryBucket);
  });
  afterAll(() => app?.close());

  /** The object's URL on the test server (PUBLIC_BASE_URL is a placeholder the test swaps for the real port). */
  const local = (url: string) => url.replace('http://127.0.0.1:1', app.url);

  it('serves a result at an unguessable absolute URL under PUBLIC_BASE_URL, without a key', async () => {
    const stored = await bucket.put(PNG, 'png');
    expect(stored.url).toMatch(/^http:\/\/127\.0\.0\.1:1\/tmp\/[A-Za-z0-9_-]{43}\.png$/);
    expect(stored.size).toBe(PNG.length);
    expect(stored.expiresAt.getTime() - Date.now()).toBeGreaterThan(86_390_000);
    const res = await fetch(local(stored.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(PNG.length));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
    const head = await fetch(local(stored.url), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PNG.length));
    // Two results never share a name.
    expect((await bucket.put(PNG, 'png')).url).not.toBe(stored.url);
  });

  it('keeps the files in a folder only the service may open (DATA_DIR/temporary, mode 0700)', async () => {
    await bucket.put(PNG, 'png');
    for (const dir of [app.config.dataDir, join(app.config.dataDir, TEMPORARY_FOLDER)]) {
      expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    }
  });

  it.each([
    ['an unknown name', `${'A'.repeat(43)}.png`],
    ['a malformed name', 'short.png'],
    ['a traversal attempt', '..%2F..%2Fatelier.sqlite'],
  ])('answers 404 with the Error object for %s', async (_name, name) => {
    const res = await fetch(`${app.url}/tmp/${name}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error_code: '1501',
      error_type: 'general',
      error_message: 'The temporary file does not exist or has expired.',
      error_details: {},
    });
  });

  it('answers 404 once a file is older than 24 hours, and the sweeper deletes it', async () => {
    const stored = await bucket.put(PNG, 'png');
    const file = join(app.config.dataDir, TEMPORARY_FOLDER, stored.key);
    expect(existsSync(file)).toBe(true);
    const dayAgo = new Date(Date.now() - 86_400_000 - 1000);
    utimesSync(file, dayAgo, dayAgo);
    expect((await fetch(local(stored.url))).status).toBe(404);
    // TEMP_SWEEP_INTERVAL_SECONDS=1: within a few ticks the file is gone; a fresh one stays.
    const fresh = await bucket.put(PNG, 'png');
    for (let i = 0; i < 50 && existsSync(file); i++) await sleep(100);
    expect(existsSync(file)).toBe(false);
    expect((await fetch(local(fresh.url))).status).toBe(200);
  });
});

describe('temporary bucket, scaled mode (S3-compatible bucket, presigned URLs)', () => {
  let s3: S3TestServer;
  let app: TestApp;
  let bucket: TemporaryBucket;

  beforeAll(async () => {
    s3 = await startS3Server(['scratch']);
    app = await startTestApp({
      TEMP_BUCKET: 's3://scratch/results',
      TEMP_BUCKET_ENDPOINT: s3.endpoint,
      TEMP_BUCKET_ACCESS_KEY: s3.accessKey,
      TEMP_BUCKET_SECRET_KEY: s3.secretKey,
    });
    bucket = app.app.get(TemporaryBucket);
  });
  afterAll(async () => {
    await app?.close();
    await s3?.stop();
  });

  it('stores in the bucket and hands out a presigned URL valid for 24 hours', async () => {
    const stored = await bucket.put(PNG, 'png');
    expect(stored).toMatchObject({ bucket: 'scratch', key: expect.stringMatching(/^results\/[\w-]{43}\.png$/) });
    const url = new URL(stored.url);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('86400');
    const res = await fetch(stored.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sweeps objects past their lifetime and keeps the others', async () => {
    const stored = await bucket.put(PNG, 'jpg');
    expect(await bucket.sweep()).toBe(0);
    expect(await bucket.sweep(Date.now() + 86_400_000 + 60_000)).toBeGreaterThanOrEqual(1);
    expect((await fetch(stored.url)).status).toBe(404);
  });
});
