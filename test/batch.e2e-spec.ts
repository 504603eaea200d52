import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { fetchResult } from './helpers/edit-client';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import type { RunningProcess } from './helpers/process';
import { s3StorageBody, startS3Server, type S3TestServer } from './helpers/s3-server';
import { FINAL, startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * Batch and asynchronous edits over HTTP (docs/api-contract.md, "Batch"), in the mode the suite runs in: embedded (the API
 * runs the work) or, with REDIS_URL, BullMQ with the built worker app as its own process. Inputs and outputs live
 * in a real S3-compatible server (s3rver); results are read back from the bucket with the test's own client.
 */

let s3: S3TestServer;
let app: TestApp;
let images: ImageServer;
let worker: RunningProcess | undefined;

const IN = 'batch-in';
const OUT = 'batch-out';

async function put(bucket: string, key: string, body: Buffer): Promise<void> {
  await s3.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

async function keys(bucket: string, prefix: string): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!).sort();
}

async function read(bucket: string, key: string): Promise<Buffer> {
  const object = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
}

const api = () => client(app.url, app.adminKey);

async function runBatch(body: unknown): Promise<Record<string, any>> {
  const res = await api().post('/v1/image/edit/batch', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('ACCEPTED');
  expect(res.body.data.result_url).toMatch(new RegExp(`/v1/image/edit/batch/${res.body.data.id}$`));
  return waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${res.body.data.id}`);
}

beforeAll(async () => {
  s3 = await startS3Server([IN, OUT]);
  images = await startImageServer();
  app = await startTestApp({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    // An item that fails for a passing reason runs again 300 ms later, then 600 ms later: long enough for a test
    // to see it in retry, short enough not to wait.
    TASK_RETRY_DELAY_MS: '300',
    TASK_ATTEMPTS: '3',
    // generative work turned off: a task asking for style transfer fails for good with the 501 (below)
    GENERATIVE_BACKEND: 'none',
  });
  worker = await startWorkerFor(app);
  for (const [name, bucket] of [
    ['in', IN],
    ['out', OUT],
  ]) {
    const res = await api().post('/v1/storage/storages', s3StorageBody(s3, name, bucket));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  // A folder of mixed images, one of them in a sub-folder, and a file that is not an image.
  await put(IN, 'shoes/red.jpg', await quadrantsImage({ format: 'jpeg', width: 200, height: 100 }));
  await put(IN, 'shoes/blue.png', await quadrantsImage({ format: 'png', width: 100, height: 200 }));
  await put(IN, 'shoes/green.webp', await quadrantsImage({ format: 'webp', width: 120, height: 120 }));
  await put(IN, 'shoes/notes.txt', Buffer.from('not an image'));
  await put(IN, 'shoes/winter/boot.tiff', await quadrantsImage({ format: 'tiff', width: 80, height: 40 }));
  // A folder with a corrupt image among good ones.
  await put(IN, 'mixed/good-1.jpg', await quadrantsImage({ format: 'jpeg', width: 64, height: 64 }));
  await put(IN, 'mixed/broken.jpg', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]));
  await put(IN, 'mixed/good-2.png', await quadrantsImage({ format: 'png', width: 64, height: 64 }));
  images.put('/list/one.jpg', await quadrantsImage({ format: 'jpeg', width: 300, height: 150 }));
  images.put('/list/two.png', await quadrantsImage({ format: 'png', width: 150, height: 300 }));
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
  await s3?.stop();
});

describe('POST /v1/image/edit/batch', () => {
  it('edits the images of a folder root into the output folder, jpeg by default, names kept', async () => {
    const task = await runBatch({
      input: 'storage://in/shoes/',
      operations: { resizing: { width: 50, height: 50, fit: 'bounds' } },
      output: 'storage://out/flat/',
    });
    expect(task.status).toBe('DONE');
    expect(task.errors).toEqual([]);
    expect(task.progress).toEqual({ total: 3, done: 3, failed: 0, retrying: 0 });
    expect(task.retrying).toEqual([]);
    expect(await keys(OUT, 'flat/')).toEqual(['flat/blue.jpg', 'flat/green.jpg', 'flat/red.jpg']);
    const red = await sharp(await read(OUT, 'flat/red.jpg')).metadata();
    expect([red.format, red.width, red.height]).toEqual(['jpeg', 50, 25]);
    const result = task.results.find((r: any) => r.input_object.input === 'storage://in/shoes/red.jpg');
    expect(result.input_object).toMatchObject({ format: 'jpeg', width: 200, height: 100 });
    expect(result.output_object).toMatchObject({
      format: 'jpeg',
      width: 50,
      height: 25,
      tmp_url: '',
      object_key: 'flat/red.jpg',
      object_bucket: OUT,
      service_storage_uri: 'storage://out/flat/red.jpg',
      claid_storage_uri: 'storage://out/flat/red.jpg',
    });
    // Both names of the result's storage reference, for the API family's existing clients: always equal.
    for (const { output_object: output } of task.results) {
      expect(output.claid_storage_uri).toMatch(/^storage:\/\/out\/flat\//);
      expect(output.claid_storage_uri).toBe(output.service_storage_uri);
    }
  });

  it('keeps sub-folder paths with recursive, in the asked format', async () => {
    const task = await runBatch({
      input: { source: 'storage://in/shoes/', recursive: true },
      output: { destination: 'storage://out/deep/', format: 'webp' },
    });
    expect(task.status).toBe('DONE');
    expect(task.progress).toEqual({ total: 4, done: 4, failed: 0, retrying: 0 });
    expect(await keys(OUT, 'deep/')).toEqual([
      'deep/blue.webp',
      'deep/green.webp',
      'deep/red.webp',
      'deep/winter/boot.webp',
    ]);
    const boot = await sharp(await read(OUT, 'deep/winter/boot.webp')).metadata();
    expect([boot.format, boot.width, boot.height]).toEqual(['webp', 80, 40]);
  });

  it('edits a list of URLs into the temporary bucket, its total known from the first answer', async () => {
    const created = await api().post('/v1/image/edit/batch', {
      input: [images.url('/list/one.jpg'), images.url('/list/two.png')],
      operations: { resizing: { width: '50%', height: 'auto', fit: 'bounds' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.status).toBe('ACCEPTED');
    expect(created.body.data.progress).toEqual({ total: 2, done: 0, failed: 0, retrying: 0 });
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${created.body.data.id}`);
    expect(task.status).toBe('DONE');
    expect(task.progress).toEqual({ total: 2, done: 2, failed: 0, retrying: 0 });
    expect(task.results).toHaveLength(2);
    for (const result of task.results) {
      expect(result.output_object.tmp_url).toMatch(/\/tmp\/.+\.jpg$/);
      const bytes = await fetchResult(app, result.output_object.tmp_url);
      const meta = await sharp(bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual([
        'jpeg',
        result.input_object.width / 2,
        result.input_object.height / 2,
      ]);
    }
  });

  it('ends in ERROR with the corrupt image in errors and the good ones in results', async () => {
    const task = await runBatch({ input: 'storage://in/mixed/', output: 'storage://out/mixed/' });
    expect(task.status).toBe('ERROR');
    expect(task.progress).toEqual({ total: 3, done: 2, failed: 1, retrying: 0 });
    expect(task.errors).toHaveLength(1);
    expect(task.errors[0].input_object.input).toBe('storage://in/mixed/broken.jpg');
    expect(task.errors[0].error).toMatch(/cannot be decoded|corrupt|not a supported/i);
    expect(task.results.map((r: any) => r.input_object.input).sort()).toEqual([
      'storage://in/mixed/good-1.jpg',
      'storage://in/mixed/good-2.png',
    ]);
    expect(await keys(OUT, 'mixed/')).toEqual(['mixed/good-1.jpg', 'mixed/good-2.jpg']);
  });

  it('names what it can of a failed input from its name: format and mime by extension, empty when unknown', async () => {
    const task = await runBatch({
      input: ['storage://in/shoes/missing.png', 'storage://in/shoes/missing.JPEG', 'storage://in/shoes/missing.xyz'],
      output: 'storage://out/missing/',
    });
    expect(task.status).toBe('ERROR');
    expect(task).not.toHaveProperty('result');
    const byInput = Object.fromEntries(task.errors.map((e: any) => [e.input_object.input, e.input_object]));
    expect(byInput['storage://in/shoes/missing.png']).toMatchObject({ format: 'png', mime: 'image/png', ext: 'png' });
    expect(byInput['storage://in/shoes/missing.JPEG']).toMatchObject({ format: 'jpeg', mime: 'image/jpeg' });
    expect(byInput['storage://in/shoes/missing.xyz']).toMatchObject({ format: '', mime: '', ext: 'xyz' });
  });

  it('ends in ERROR when the folder is missing', async () => {
    const task = await runBatch({ input: 'storage://in/no-such-folder/', output: 'storage://out/none/' });
    expect(task.status).toBe('ERROR');
    expect(task.results).toEqual([]);
    expect(task.errors[0].error).toMatch(/holds no images/);
    expect(task.progress).toEqual({ total: 0, done: 0, failed: 0, retrying: 0 });
  });

  it('refuses bad requests with 422 and field paths, before any task exists', async () => {
    const cases: [unknown, string][] = [
      [{}, 'input'],
      [{ input: [] }, 'input'],
      [{ input: ['storage://in/a.jpg', 'ftp://x/y.jpg'] }, 'input.1'],
      [{ input: { source: 'storage://in/shoes/', recursive: 'yes' } }, 'input.recursive'],
      [{ input: { source: 'storage://in/shoes/', deep: true } }, 'input.deep'],
      [{ input: 'storage://in/shoes/', output: 'storage://out/file.jpg' }, 'output'],
      [{ input: 'storage://nope/shoes/' }, 'input'],
      [{ input: 'storage://in/shoes/', output: 'storage://nope/x/' }, 'output.destination'],
      [
        { input: 'storage://in/shoes/', operations: { adjustments: { contrast: 500 } } },
        'operations.adjustments.contrast',
      ],
      [{ input: 'storage://in/shoes/', webhook_url: 'ftp://hooks' }, 'webhook_url'],
    ];
    for (const [body, path] of cases) {
      const res = await api().post('/v1/image/edit/batch', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.error_details), JSON.stringify(body)).toContain(path);
    }
  });

  it('shows an item in retry with its runs so far and the last failure, until it succeeds', async () => {
    images.put('/flaky/shoe.jpg', await quadrantsImage({ format: 'jpeg', width: 64, height: 64 }));
    images.fail('/flaky/shoe.jpg', 2); // two 503s, then the image: done at the third and last run
    const flaky = images.url('/flaky/shoe.jpg?token=s3cret-signature');
    const created = await api().post('/v1/image/edit/batch', { input: [images.url('/list/one.jpg'), flaky] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.retrying).toEqual([]);
    const path = `/v1/image/edit/batch/${created.body.data.id}`;
    // Runs seen in retry: 1 while the first failure waits out its 300 ms, 2 during the second run and its 600 ms
    // (and 3 during the third run, which may be too short to catch).
    const seen = new Set<number>();
    let task: Record<string, any> = created.body.data;
    for (let i = 0; i < 500 && !FINAL.includes(task.status); i += 1) {
      if (task.progress.retrying > 0) {
        expect(task.progress.retrying).toBe(1);
        expect(task.retrying).toEqual([{ input: flaky, attempts: expect.any(Number), error: expect.any(String) }]);
        expect(task.retrying[0].error).toBe('The URL answered HTTP 503.');
        seen.add(task.retrying[0].attempts);
      } else {
        expect(task.retrying).toEqual([]);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      const res = await api().get(path);
      expect(res.status).toBe(200);
      task = res.body.data;
    }
    expect([...seen].filter((runs) => runs !== 3).sort()).toEqual([1, 2]);
    expect(task.status).toBe('DONE');
    expect(task.progress).toEqual({ total: 2, done: 2, failed: 0, retrying: 0 });
    expect(task.retrying).toEqual([]);
    expect(task.errors).toEqual([]);
    expect(images.hits.get('/flaky/shoe.jpg')).toBe(3);
  });

  it('fails an image whose URL answers 404 at its first run, and retries one throttled with 429', async () => {
    images.put('/throttled/shoe.jpg', await quadrantsImage({ format: 'jpeg', width: 64, height: 64 }));
    images.fail('/throttled/shoe.jpg', 1, 429);
    const task = await runBatch({ input: [images.url('/gone/shoe.jpg'), images.url('/throttled/shoe.jpg')] });
    expect(task.status).toBe('ERROR');
    expect(task.progress).toEqual({ total: 2, done: 1, failed: 1, retrying: 0 });
    expect(task.errors.map((failure: { error: string }) => failure.error)).toEqual(['The URL answered HTTP 404.']);
    expect(images.hits.get('/gone/shoe.jpg')).toBe(1);
    expect(images.hits.get('/throttled/shoe.jpg')).toBe(2);
  });

  it("answers 404 for another account's task and for a missing one, 422 for a bad id", async () => {
    const created = await api().post('/v1/image/edit/batch', { input: [images.url('/list/one.jpg')] });
    const id = created.body.data.id;
    const other = await api().post('/v1/keys', { name: 'other', scopes: ['image_editing'], account: 'other' });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const foreign = await client(app.url, other.body.data.key).get(`/v1/image/edit/batch/${id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error_message).toBe('Task not found.');
    expect((await api().get('/v1/image/edit/batch/999999')).status).toBe(404);
    expect((await api().get(`/v1/image/edit/async/${id}`)).status).toBe(404);
    expect((await api().get('/v1/image/edit/batch/abc')).status).toBe(422);
    await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${id}`);
  });
});

describe('POST /v1/image/edit/async', () => {
  it('edits one image in the background and shows it as result', async () => {
    const res = await api().post('/v1/image/edit/async', {
      input: 'storage://in/shoes/red.jpg',
      operations: { resizing: { width: 100, fit: 'bounds' } },
      output: { destination: 'storage://out/async/red.png', format: 'png' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe('ACCEPTED');
    expect(res.body.data.progress).toEqual({ total: 1, done: 0, failed: 0, retrying: 0 });
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${res.body.data.id}`);
    expect(task.status).toBe('DONE');
    expect(task.result.output_object).toMatchObject({
      format: 'png',
      width: 100,
      height: 50,
      object_key: 'async/red.png',
    });
    const meta = await sharp(await read(OUT, 'async/red.png')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 100, 50]);
  });

  it('leaves result out (never null, never {}) while ACCEPTED or PROCESSING and after a failure', async () => {
    const res = await api().post('/v1/image/edit/async', {
      input: 'storage://in/shoes/missing.png',
      output: { destination: 'storage://out/async/' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe('ACCEPTED');
    expect(res.body.data).not.toHaveProperty('result');
    const path = `/v1/image/edit/async/${res.body.data.id}`;
    let task: Record<string, any> = res.body.data;
    for (let i = 0; i < 600 && !FINAL.includes(task.status); i += 1) {
      expect(task, task.status).not.toHaveProperty('result');
      await new Promise((resolve) => setTimeout(resolve, 20));
      task = (await api().get(path)).body.data;
    }
    expect(task.status).toBe('ERROR');
    expect(task).not.toHaveProperty('result');
    expect(task.errors[0].input_object).toMatchObject({
      input: 'storage://in/shoes/missing.png',
      ext: 'png',
      format: 'png',
      mime: 'image/png',
      width: 0,
      height: 0,
    });
  });

  it('fails an operation whose model is not installed for good: one run, no retry, the 501 message', async () => {
    images.put('/no-model/shoe.jpg', await quadrantsImage({ format: 'jpeg', width: 64, height: 64 }));
    const res = await api().post('/v1/image/edit/async', {
      input: images.url('/no-model/shoe.jpg'),
      operations: { generative: { style_transfer: { prompt: 'soft watercolour' } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${res.body.data.id}`);
    expect(task.status).toBe('ERROR');
    expect(task.progress).toEqual({ total: 1, done: 0, failed: 1, retrying: 0 });
    expect(task.errors[0].error).toBe(
      'The models these operations need are not installed on this service: operations.generative.style_transfer (generative).',
    );
    // TASK_ATTEMPTS is 3 here: a retried item would have fetched its input three times
    expect(images.hits.get('/no-model/shoe.jpg')).toBe(1);
  });

  it('validates like the edit route', async () => {
    const res = await api().post('/v1/image/edit/async', { operations: {} });
    expect(res.status).toBe(422);
    expect(res.body.error_details.input).toBeDefined();
  });
});
