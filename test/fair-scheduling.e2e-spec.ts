import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { KEYS_CLI, runToEnd, type RunningProcess } from './helpers/process';
import { s3StorageBody, startS3Server, type S3TestServer } from './helpers/s3-server';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * Fair sharing between accounts (docs/batch.md, "Scheduling", "Cancellation", "Quota"), in the mode the suite runs
 * in (embedded, or BullMQ with the built worker). Inputs come from a local origin that records the order of its
 * requests and can stall an image (an item that holds its place in the queue); outputs go to a real S3-compatible
 * server. The limits are small so that they show: 4 items edited at once, at most 2 of a task and 3 of an account
 * handed to the queue at a time.
 */

const PER_TASK = 2;
const PER_ACCOUNT = 3;
/** How long a stalled fetch holds its item before it fails (no retry: TASK_ATTEMPTS 1). */
const FETCH_TIMEOUT_MS = 4_000;
/** Long enough for work that should not happen to show if it did (a queued item runs in milliseconds). */
const SETTLE_MS = 700;
const OUT = 'fair-out';
const IN = 'fair-in';

let app: TestApp;
let worker: RunningProcess | undefined;
let images: ImageServer;
let s3: S3TestServer;
let hooks: WebhookReceiver;
let operator: ReturnType<typeof client>;
/** Paths of the origin in the order they were first requested. */
const requested = () => [...images.hits.keys()];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  images = await startImageServer();
  hooks = await startWebhookReceiver();
  s3 = await startS3Server([IN, OUT]);
  app = await startTestApp({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
    TASK_ATTEMPTS: '1',
    TASK_CONCURRENCY: '4',
    TASK_OUTSTANDING_PER_TASK: String(PER_TASK),
    TASK_OUTSTANDING_PER_ACCOUNT: String(PER_ACCOUNT),
  });
  worker = await startWorkerFor(app);
  operator = client(app.url, app.adminKey);
  const small = await quadrantsImage({ format: 'jpeg', width: 48, height: 32 });
  const large = await quadrantsImage({ format: 'jpeg', width: 640, height: 480 });
  for (let i = 0; i < 60; i++) images.put(`/big/${i}.jpg`, large);
  for (let i = 0; i < 3; i++) images.put(`/small/${i}.jpg`, small);
  images.put('/good/0.jpg', small);
  images.put('/good/1.jpg', small);
  for (let i = 0; i < 5; i++) {
    await s3.client.send(new PutObjectCommand({ Bucket: IN, Key: `five/${i}.jpg`, Body: small }));
  }
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
  await hooks?.stop();
  await s3?.stop();
});

/**
 * A key of its own account (made on first use), with the quota asked; and the account's own admin key, without
 * quota, to read tasks with (a read is a counted call) and to make the account's storages when asked.
 */
async function accountKey(account: string, options: { quota?: number; storage?: boolean } = {}) {
  const made = await operator.post('/v1/keys', {
    name: `${account} key`,
    scopes: ['image_editing', 'storage'],
    account,
    ...(options.quota !== undefined && { quota: options.quota }),
  });
  expect(made.status, made.text).toBe(200);
  const admin = await operator.post('/v1/keys', { name: `${account} admin`, scopes: ['admin'], account });
  expect(admin.status, admin.text).toBe(200);
  if (options.storage) {
    for (const [name, bucket] of [
      ['out', OUT],
      ['in', IN],
    ]) {
      const storage = await client(app.url, admin.body.data.key).post(
        '/v1/storage/storages',
        s3StorageBody(s3, name, bucket),
      );
      expect(storage.status, storage.text).toBe(200);
    }
  }
  return {
    id: made.body.data.id as number,
    key: made.body.data.key as string,
    api: client(app.url, made.body.data.key),
    adminKey: admin.body.data.key as string,
  };
}

async function submit(api: ReturnType<typeof client>, body: Record<string, unknown>): Promise<number> {
  const res = await api.post('/v1/image/edit/batch', body);
  expect(res.status, res.text).toBe(200);
  return res.body.data.id;
}

async function outputs(prefix: string): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: OUT, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!);
}

/** Waits (bounded) until `count` of the paths under `prefix` were requested. */
async function untilRequested(prefix: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (requested().filter((path) => path.startsWith(prefix)).length < count) {
    if (Date.now() > deadline) throw new Error(`${prefix}: fewer than ${count} requests: ${requested().join(' ')}`);
    await sleep(20);
  }
}

/** The paths under `prefix` requested so far, sorted (items run side by side: their order is not fixed). */
const hitsUnder = (prefix: string) =>
  requested()
    .filter((path) => path.startsWith(prefix))
    .sort();

describe('scheduling', () => {
  it("runs a second account's small batch long before the first account's big one ends", async () => {
    const a = await accountKey('fair-a');
    const b = await accountKey('fair-b');
    const big = await submit(a.api, {
      input: Array.from({ length: 60 }, (_, i) => images.url(`/big/${i}.jpg`)),
      operations: { resizing: { width: 320, height: 240 } },
    });
    const small = await submit(b.api, { input: [0, 1, 2].map((i) => images.url(`/small/${i}.jpg`)) });
    const smallTask = await waitForTask(app.url, b.key, `/v1/image/edit/batch/${small}`);
    const bigTask = await waitForTask(app.url, a.key, `/v1/image/edit/batch/${big}`);
    expect([smallTask.status, bigTask.status]).toEqual(['DONE', 'DONE']);
    expect(bigTask.progress).toMatchObject({ total: 60, done: 60 });
    // One queue for everyone would fetch B's images after A's 60; with a bounded share per account they come
    // after the few of A's that were in hand when B arrived.
    const order = requested().filter((path) => path.startsWith('/big/') || path.startsWith('/small/'));
    const positions = order.flatMap((path, index) => (path.startsWith('/small/') ? [index] : []));
    expect(positions, order.join(' ')).toHaveLength(3);
    expect(Math.max(...positions), order.join(' ')).toBeLessThan(30);
    expect(Date.parse(smallTask.finished_at)).toBeLessThan(Date.parse(bigTask.finished_at));
  });

  it('hands the queue at most TASK_OUTSTANDING_PER_TASK items of a task and _PER_ACCOUNT of an account', async () => {
    const c = await accountKey('fair-c');
    const d = await accountKey('fair-d', { storage: true });
    for (let i = 0; i < 6; i++) images.stall(`/c1/${i}.jpg`);
    for (let i = 0; i < 6; i++) images.stall(`/c2/${i}.jpg`);
    const first = await submit(c.api, { input: Array.from({ length: 6 }, (_, i) => images.url(`/c1/${i}.jpg`)) });
    await untilRequested('/c1/', PER_TASK);
    const second = await submit(c.api, { input: Array.from({ length: 6 }, (_, i) => images.url(`/c2/${i}.jpg`)) });
    await untilRequested('/c2/', PER_ACCOUNT - PER_TASK);
    // Another account's task runs beside them, though C's stalled items hold their places.
    const other = await submit(d.api, {
      input: [images.url('/good/0.jpg'), images.url('/good/1.jpg')],
      output: 'storage://out/d/',
    });
    expect((await waitForTask(app.url, d.key, `/v1/image/edit/batch/${other}`)).status).toBe('DONE');
    await sleep(SETTLE_MS);
    expect(hitsUnder('/c1/')).toEqual(['/c1/0.jpg', '/c1/1.jpg']);
    expect(hitsUnder('/c2/')).toEqual(['/c2/0.jpg']);
    const cancelled = await c.api.delete(`/v1/image/edit/batch/${first}`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data).toMatchObject({ id: first, status: 'CANCELLED', progress: { total: 6, done: 0 } });
    // the 4 never started, and the 2 stalled until they end
    expect(cancelled.body.data.progress.cancelled).toBe(6);
    expect(cancelled.body.data.finished_at).not.toBeNull();
    // The first task's share goes to the second task, up to its own limit.
    await untilRequested('/c2/', PER_TASK);
    expect((await c.api.delete(`/v1/tasks/${second}`)).body.data).toMatchObject({ status: 'CANCELLED' });
    // The stalled fetches time out; nothing of either task runs after that.
    await sleep(FETCH_TIMEOUT_MS + SETTLE_MS);
    expect(hitsUnder('/c1/')).toHaveLength(2);
    expect(hitsUnder('/c2/')).toHaveLength(2);
    const ended = await waitForTask(app.url, c.key, `/v1/image/edit/batch/${first}`);
    expect(ended).toMatchObject({ status: 'CANCELLED', results: [], progress: { done: 0, cancelled: 4 } });
    expect(ended.progress.failed).toBe(2);
  });
});

describe('cancellation', () => {
  it('DELETE mid-run: items not started never run, the task ends CANCELLED, its webhook says so; then 409', async () => {
    const e = await accountKey('fair-e', { storage: true });
    const other = await accountKey('fair-e2');
    images.put('/e/0.jpg', await quadrantsImage({ format: 'jpeg', width: 40, height: 40 }));
    images.put('/e/1.jpg', await quadrantsImage({ format: 'jpeg', width: 40, height: 40 }));
    images.stall('/e/2.jpg');
    images.stall('/e/3.jpg');
    const inputs = Array.from({ length: 20 }, (_, i) => images.url(`/e/${i}.jpg`));
    for (let i = 4; i < 20; i++)
      images.put(`/e/${i}.jpg`, await quadrantsImage({ format: 'png', width: 8, height: 8 }));
    const id = await submit(e.api, { input: inputs, output: 'storage://out/e/', webhook_url: hooks.url('/e') });
    await untilRequested('/e/', 4);
    expect((await other.api.delete(`/v1/image/edit/batch/${id}`)).status).toBe(404);
    const res = await e.api.delete(`/v1/image/edit/batch/${id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe('CANCELLED');
    const [delivery] = await hooks.received('/e', 1);
    expect(JSON.parse(delivery.body.toString('utf8')).data).toMatchObject({ id, status: 'CANCELLED' });
    await sleep(FETCH_TIMEOUT_MS + SETTLE_MS);
    expect(hitsUnder('/e/')).toEqual(['/e/0.jpg', '/e/1.jpg', '/e/2.jpg', '/e/3.jpg']);
    expect((await outputs('e/')).sort()).toEqual(['e/0.jpg', 'e/1.jpg']);
    const task = await waitForTask(app.url, e.key, `/v1/image/edit/batch/${id}`);
    expect(task.progress).toEqual({ total: 20, done: 2, failed: 2, retrying: 0, cancelled: 16 });
    const again = await e.api.delete(`/v1/image/edit/batch/${id}`);
    expect(again.status).toBe(409);
    expect(again.body.error_message).toMatch(/ended/);
  });

  it("revoking a key cancels its tasks that have not ended; the account's other keys' tasks go on", async () => {
    const f = await accountKey('fair-f');
    for (let i = 0; i < 2; i++) images.stall(`/f/${i}.jpg`);
    for (let i = 2; i < 10; i++)
      images.put(`/f/${i}.jpg`, await quadrantsImage({ format: 'png', width: 8, height: 8 }));
    const id = await submit(f.api, { input: Array.from({ length: 10 }, (_, i) => images.url(`/f/${i}.jpg`)) });
    await untilRequested('/f/', PER_TASK);
    const admin = client(app.url, f.adminKey);
    const kept = await submit(admin, { input: [images.url('/good/0.jpg'), images.url('/good/1.jpg')] });
    const revoked = await operator.delete(`/v1/keys/${f.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect((await waitForTask(app.url, f.adminKey, `/v1/image/edit/batch/${kept}`)).status).toBe('DONE');
    await sleep(FETCH_TIMEOUT_MS + SETTLE_MS);
    expect(hitsUnder('/f/')).toEqual(['/f/0.jpg', '/f/1.jpg']);
    // the key is revoked: the account's admin key reads the task
    const task = await waitForTask(app.url, f.adminKey, `/v1/image/edit/batch/${id}`);
    expect(task).toMatchObject({ status: 'CANCELLED', progress: { total: 10, done: 0, cancelled: 8 } });
  });
  it('a key revoked with the keys CLI (no task service there): its tasks end at the next top-up', async () => {
    const k = await accountKey('fair-k');
    for (let i = 0; i < 2; i++) images.stall(`/k/${i}.jpg`);
    for (let i = 2; i < 8; i++) images.put(`/k/${i}.jpg`, await quadrantsImage({ format: 'png', width: 8, height: 8 }));
    const id = await submit(k.api, { input: Array.from({ length: 8 }, (_, i) => images.url(`/k/${i}.jpg`)) });
    await untilRequested('/k/', PER_TASK);
    const revoked = await runToEnd(KEYS_CLI, ['revoke', String(k.id)], { ...app.env }, 25_000);
    expect(revoked.code, revoked.output).toBe(0);
    // the stalled items end (time out), the top-up after them finds the key revoked and cancels the task
    const task = await waitForTask(app.url, k.adminKey, `/v1/image/edit/batch/${id}`, FETCH_TIMEOUT_MS + 10_000);
    expect(task).toMatchObject({ status: 'CANCELLED', progress: { total: 8, done: 0, failed: 2, cancelled: 6 } });
    await sleep(SETTLE_MS);
    expect(hitsUnder('/k/')).toEqual(['/k/0.jpg', '/k/1.jpg']);
  });
});

describe('quota, one call per image', () => {
  it('refuses a list that the calls left cannot cover (402, no task), and charges a list it can once', async () => {
    const g = await accountKey('fair-g', { quota: 3 });
    const five = Array.from({ length: 5 }, (_, i) => images.url(`/small/${i % 3}.jpg`));
    const refused = await g.api.post('/v1/image/edit/batch', { input: five });
    expect(refused.status, refused.text).toBe(402);
    expect(refused.body.error_message).toMatch(/5 image/);
    const listing = await operator.get('/v1/keys?account=fair-g');
    expect(listing.body.data.find((key: { id: number }) => key.id === g.id).calls_used).toBe(0);
    const two = await submit(g.api, { input: five.slice(0, 2) });
    expect((await waitForTask(app.url, g.adminKey, `/v1/image/edit/batch/${two}`)).status).toBe('DONE');
    const after = await operator.get('/v1/keys?account=fair-g');
    // two images, and no call for the POST itself
    expect(after.body.data.find((key: { id: number }) => key.id === g.id).calls_used).toBe(2);
  });

  it('ends a folder task in ERROR once the quota is spent, with no edit beyond it', async () => {
    const h = await accountKey('fair-h', { quota: 3, storage: true });
    const id = await submit(h.api, { input: 'storage://in/five/', output: 'storage://out/h/' });
    const task = await waitForTask(app.url, h.adminKey, `/v1/image/edit/batch/${id}`);
    expect(task.status).toBe('ERROR');
    expect(task.errors[0].error).toMatch(/quota is spent/);
    expect(task.progress).toMatchObject({ done: 3, failed: 0 });
    expect(await outputs('h/')).toHaveLength(3);
    const again = await h.api.post('/v1/image/edit/batch', { input: 'storage://in/five/' });
    expect(again.status).toBe(402);
  });
});
