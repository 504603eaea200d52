import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import type { RunningProcess } from './helpers/process';
import { listKeys, s3StorageBody, startS3Server, type S3TestServer } from './helpers/s3-server';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * A batch whose output store goes down (docs/batch.md, "When the output store is down"; issue 31, item 1), in the
 * mode the suite runs in (embedded, or BullMQ with the built worker), scaled down: 20 images instead of 100, and
 * small back-off, threshold and probe settings. Inputs come from a local origin; outputs go to a real
 * S3-compatible server (s3rver) that the test stops and starts again on the same port. The account has as few
 * places in the queue as it has workers, so that items of the broken batch holding them would show.
 */

const SETTINGS = {
  FETCH_ALLOW_HOSTS: '127.0.0.1',
  TASK_CONCURRENCY: '2',
  TASK_OUTSTANDING_PER_TASK: '2',
  TASK_OUTSTANDING_PER_ACCOUNT: '2',
  TASK_ATTEMPTS: '5',
  // Long enough that an item waiting for its retry is seen waiting; the last of 5 attempts comes 75 s after the first.
  TASK_RETRY_DELAY_MS: '5000',
  TASK_STORE_FAILURES: '2',
  TASK_STORE_PROBE_MS: '300',
};
const BIG = 20;
const OUT = 'pause-out';

let images: ImageServer;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  images = await startImageServer();
  const small = await quadrantsImage({ format: 'jpeg', width: 48, height: 32 });
  for (let i = 0; i < BIG; i++) images.put(`/big/${i}.jpg`, small);
  for (let i = 0; i < 3; i++) images.put(`/plain/${i}.jpg`, small);
  for (let i = 0; i < 4; i++) images.put(`/doomed/${i}.jpg`, small);
  for (let i = 0; i < 2; i++) images.put(`/flaky/${i}.jpg`, small);
  for (let i = 0; i < 2; i++) images.put(`/next/${i}.jpg`, small);
}, 30_000);

afterAll(async () => {
  await images?.stop();
});

/** An app (and its worker in scaled mode) with `env` over SETTINGS, an S3 server, and a key with storage `out2`. */
async function setUp(env: Record<string, string>) {
  const s3 = await startS3Server([OUT]);
  const app = await startTestApp({ ...SETTINGS, ...env });
  const worker = await startWorkerFor(app);
  const made = await client(app.url, app.adminKey).post('/v1/keys', {
    name: 'pause',
    scopes: ['image_editing', 'storage'],
    account: 'pause',
  });
  expect(made.status, made.text).toBe(200);
  const key = made.body.data.key as string;
  const api = client(app.url, key);
  const storage = await api.post('/v1/storage/storages', s3StorageBody(s3, 'out2', OUT));
  expect(storage.status, storage.text).toBe(200);
  return { s3, app, worker, key, api };
}

async function tearDown(parts: { s3?: S3TestServer; app?: TestApp; worker?: RunningProcess }) {
  await parts.worker?.stop();
  await parts.app?.close();
  await parts.s3?.stop();
}

async function submit(api: ReturnType<typeof client>, body: Record<string, unknown>): Promise<number> {
  const res = await api.post('/v1/image/edit/batch', body);
  expect(res.status, res.text).toBe(200);
  return res.body.data.id;
}

/** Polls the task (bounded) until its status is `status`; returns its body's `data`. */
async function untilStatus(api: ReturnType<typeof client>, id: number, status: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/v1/image/edit/batch/${id}`);
    expect(res.status, res.text).toBe(200);
    if (res.body.data.status === status) return res.body.data;
    if (Date.now() > deadline) throw new Error(`task ${id} not ${status} within ${timeoutMs} ms: ${res.text}`);
    await sleep(50);
  }
}

describe('an output store that goes down mid-batch', () => {
  let parts: Awaited<ReturnType<typeof setUp>> | undefined;
  beforeAll(async () => {
    parts = await setUp({ TASK_STORE_PAUSE_MAX_MS: '600000' });
  }, 60_000);
  afterAll(() => tearDown(parts ?? {}));

  it("does not let items waiting for their retry hold the account's places in the queue", async () => {
    const { app, key, api } = parts!;
    // Both places of the account go to a batch whose two inputs answer 503 on every attempt: they wait for retries.
    for (let i = 0; i < 2; i++) images.fail(`/flaky/${i}.jpg`, 5);
    const flaky = await submit(api, { input: [0, 1].map((i) => images.url(`/flaky/${i}.jpg`)) });
    const deadline = Date.now() + 20_000;
    while ((await api.get(`/v1/image/edit/batch/${flaky}`)).body.data.progress.retrying < 2) {
      if (Date.now() > deadline) throw new Error('the flaky items were not retrying within 20 s');
      await sleep(50);
    }
    // Holding their places, they would hold up this batch until their last attempt fails, 75 s on.
    const next = await submit(api, { input: [0, 1].map((i) => images.url(`/next/${i}.jpg`)) });
    const ended = await waitForTask(app.url, key, `/v1/image/edit/batch/${next}`, 20_000);
    expect(ended).toMatchObject({ status: 'DONE', progress: { total: 2, done: 2, failed: 0 } });
    const waiting = (await api.get(`/v1/image/edit/batch/${flaky}`)).body.data;
    expect(waiting).toMatchObject({ status: 'PROCESSING', progress: { done: 0, failed: 0, retrying: 2 } });
    expect((await api.delete(`/v1/image/edit/batch/${flaky}`)).status).toBe(200);
  });

  it("pauses the batch, lets the account's other batch end DONE, and finishes when the store is back", async () => {
    const { s3, app, key, api } = parts!;
    // Items 2 and 3 are held at the origin, holding both of the batch's places, while the store is stopped.
    const held = [images.hold('/big/2.jpg'), images.hold('/big/3.jpg')];
    const big = await submit(api, {
      input: Array.from({ length: BIG }, (_, i) => images.url(`/big/${i}.jpg`)),
      output: { destination: 'storage://out2/res/' },
    });
    await Promise.all(held.map((hold) => hold.arrived));
    expect(await listKeys(s3, OUT, 'res/')).toEqual(['res/0.jpg', 'res/1.jpg']);
    await s3.halt();
    for (const hold of held) hold.release();

    const paused = await untilStatus(api, big, 'PAUSED');
    expect(paused.pause.reason).toContain('the output storage "out2"');
    expect(paused.pause.reason).toContain('resumes by itself once the store answers again');
    expect(Date.parse(paused.pause.since)).not.toBeNaN();
    expect(paused.finished_at).toBeNull();
    expect(paused.progress).toMatchObject({ total: BIG, done: 2, failed: 0 });

    // The same key's batch of 3 plain inputs (results in the temporary bucket) is not held up by the paused one.
    const plain = await submit(api, { input: [0, 1, 2].map((i) => images.url(`/plain/${i}.jpg`)) });
    const small = await waitForTask(app.url, key, `/v1/image/edit/batch/${plain}`, 20_000);
    expect(small).toMatchObject({ status: 'DONE', progress: { total: 3, done: 3, failed: 0 } });
    expect((await api.get(`/v1/image/edit/batch/${big}`)).body.data.status).toBe('PAUSED');
    // Listed with its status, as any task.
    const listed = await api.get('/v1/tasks?status=PAUSED');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.items.map((task: { id: number }) => task.id)).toEqual([big]);
    expect(listed.body.data.items[0].pause).toEqual(paused.pause);

    await s3.restart();
    const done = await waitForTask(app.url, key, `/v1/image/edit/batch/${big}`, 40_000);
    expect(done).toMatchObject({ status: 'DONE', progress: { total: BIG, done: BIG, failed: 0, retrying: 0 } });
    expect(done.pause).toBeUndefined();
    expect(done.errors).toEqual([]);
    const expected = Array.from({ length: BIG }, (_, i) => `res/${i}.jpg`).sort();
    expect(await listKeys(s3, OUT, 'res/')).toEqual(expected);
  });
});

describe('an output store that stays down past TASK_STORE_PAUSE_MAX_MS', () => {
  let parts: Awaited<ReturnType<typeof setUp>> | undefined;
  beforeAll(async () => {
    parts = await setUp({ TASK_STORE_PAUSE_MAX_MS: '1000' });
  }, 60_000);
  afterAll(() => tearDown(parts ?? {}));

  it('ends the waiting images FAILED with one message, and the task in ERROR', async () => {
    const { s3, app, key, api } = parts!;
    await s3.halt();
    const id = await submit(api, {
      input: Array.from({ length: 4 }, (_, i) => images.url(`/doomed/${i}.jpg`)),
      output: { destination: 'storage://out2/doomed/' },
    });
    // PAUSED for a second (too short to be sure a poll sees it: the message below says it was), then ERROR.
    const ended = await waitForTask(app.url, key, `/v1/image/edit/batch/${id}`, 30_000);
    expect(ended).toMatchObject({ status: 'ERROR', results: [], progress: { total: 4, done: 0, failed: 4 } });
    expect(ended.errors).toHaveLength(4);
    const messages = new Set(ended.errors.map((error: { error: string }) => error.error));
    expect([...messages]).toEqual([
      'The image was not written: the output storage "out2" did not answer for 1 s (TASK_STORE_PAUSE_MAX_MS), ' +
        'so the task stopped waiting for it.',
    ]);
  });
});
