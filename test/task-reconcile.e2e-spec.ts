import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { testPostgresUrl, testRedisUrl } from './helpers/databases';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { freePort, type RunningProcess } from './helpers/process';
import { createS3Storages, listKeys, startS3Server, type S3TestServer } from './helpers/s3-server';
import { adminAccountId, insertTaskRows } from './helpers/task-rows';
import { startWorker, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/*
 * Task work lost with Redis (docs/operations.md, "Backups"), scaled mode only: the queue's keys in Redis are
 * deleted (those under this test's own REDIS_PREFIX: other suites share the server) while tasks wait or run, as a
 * Redis flushed or restarted without persistence leaves them. The worker's reconciler (TASK_RECONCILE_INTERVAL_MS,
 * short here) must queue the lost work again: each task still ends with one output per input and its webhook is
 * delivered once. Retries are 60 s apart, so that no lost work can come back by itself within the test.
 */

const SCALED = Boolean(testRedisUrl && testPostgresUrl);
const TITLE = SCALED
  ? 'work lost with Redis is queued again'
  : 'work lost with Redis is queued again (skipped: scaled mode only; set DATABASE_URL and REDIS_URL)';
/**
 * The shortest interval the configuration allows beside these timeouts (FETCH_TIMEOUT_MS + WORKER_LOCK_MS): a run
 * under way when its job was lost has ended before its work is queued again.
 */
const FETCH_TIMEOUT_MS = 3_000;
const WORKER_LOCK_MS = 1_000;
const RECONCILE_MS = FETCH_TIMEOUT_MS + WORKER_LOCK_MS;
/** Three passes and a margin (a task younger than an interval waits a pass): how long lost work may take to come back. */
const RECOVERY_MS = 6 * RECONCILE_MS;
const IMAGES = 36;
const OUT = 'reconcile-out';
/** Long enough for a delivery that should not happen to show if it did (a pass runs every RECONCILE_MS). */
const SETTLE_MS = RECONCILE_MS;

const names = Array.from({ length: IMAGES }, (_, i) => `photo-${String(i).padStart(2, '0')}`);

describe.skipIf(!SCALED)(TITLE, () => {
  let app: TestApp;
  let worker: RunningProcess | undefined;
  let images: ImageServer;
  let s3: S3TestServer;
  let hooks: WebhookReceiver;
  let redis: Redis;
  let metricsPort: number;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    images = await startImageServer();
    // The first delivery to /retried fails (503): its retry, 60 s later, is what gets lost.
    hooks = await startWebhookReceiver((delivery, index) => ({
      status: delivery.path === '/retried' && index === 0 ? 503 : 200,
    }));
    s3 = await startS3Server([OUT]);
    app = await startTestApp({
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      TASK_OUTSTANDING_PER_TASK: '4',
      TASK_OUTSTANDING_PER_ACCOUNT: '4',
      TASK_RETRY_DELAY_MS: '60000',
    });
    api = client(app.url, app.adminKey);
    await createS3Storages(s3, app.url, app.adminKey, { out: OUT });
    const photo = await quadrantsImage({ format: 'jpeg', width: 640, height: 480 });
    for (const name of names) images.put(`/in/${name}.jpg`, photo);
    redis = new Redis(testRedisUrl!);
    metricsPort = await freePort();
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    redis?.disconnect();
    await app?.close();
    await images?.stop();
    await hooks?.stop();
    await s3?.stop();
  });

  /** Deletes every key of this test's queue, as a Redis that lost its data would have none; returns how many. */
  async function loseQueue(): Promise<number> {
    let deleted = 0;
    for await (const keys of redis.scanStream({ match: `${app.env.REDIS_PREFIX}:image-edit:*`, count: 500 })) {
      if ((keys as string[]).length > 0) deleted += await redis.del(...(keys as string[]));
    }
    return deleted;
  }

  async function submit(path: string, body: Record<string, unknown>): Promise<string> {
    const res = await api.post(path, body);
    expect(res.status, res.text).toBe(200);
    return `${path}/${res.body.data.id}`;
  }

  it(
    'starts the listing again of a task whose job was lost before any worker ran it',
    async () => {
      const task = await submit('/v1/image/edit/async', {
        input: images.url(`/in/${names[0]}.jpg`),
        operations: { resizing: { width: 64 } },
        webhook_url: hooks.url('/accepted'),
      });
      expect(await loseQueue()).toBeGreaterThan(0);
      // No worker ran while the job existed: the task is ACCEPTED with nothing in the queue for it.
      expect((await api.get(task)).body.data.status).toBe('ACCEPTED');
      worker = await startWorker({
        ...app.env,
        PUBLIC_BASE_URL: app.url,
        // One item at a time: the items queued beside the one held are then known (see the batch case)
        TASK_CONCURRENCY: '1',
        TASK_RECONCILE_INTERVAL_MS: String(RECONCILE_MS),
        FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
        WORKER_LOCK_MS: String(WORKER_LOCK_MS),
        METRICS_PORT: String(metricsPort),
      });
      const ended = await waitForTask(app.url, app.adminKey, task, RECOVERY_MS);
      expect(ended.status).toBe('DONE');
      expect(ended.result.output_object.width).toBe(64);
      const [delivery] = await hooks.received('/accepted', 1);
      expect(JSON.parse(delivery.body.toString()).data).toMatchObject({ status: 'DONE' });
    },
    2 * RECOVERY_MS,
  );

  it(
    'queues again the items whose jobs were lost midway through a batch, one output per input',
    async () => {
      // Item 10 holds the worker's one place while at least two more wait in the queue: a top-up hands over items
      // when fewer than half of the task's 4 places are taken, so item 10 was handed over with 2 or 3 others.
      const held = [images.hold(`/in/${names[10]}.jpg`)];
      const task = await submit('/v1/image/edit/batch', {
        input: names.map((name) => images.url(`/in/${name}.jpg`)),
        operations: { resizing: { width: 320, height: 240 } },
        output: 'storage://out/items/',
        webhook_url: hooks.url('/items'),
      });
      await Promise.all(held.map((hold) => hold.arrived));
      expect((await api.get(task)).body.data.progress).toMatchObject({ total: IMAGES, done: 10 });
      expect(await loseQueue()).toBeGreaterThan(0);
      for (const hold of held) hold.release();
      const ended = await waitForTask(app.url, app.adminKey, task, RECOVERY_MS);
      expect(ended.status).toBe('DONE');
      expect(ended.progress).toEqual({ total: IMAGES, done: IMAGES, failed: 0, retrying: 0 });
      expect(new Set(ended.results.map((result: any) => result.input_object.input)).size).toBe(IMAGES);
      expect(await listKeys(s3, OUT, 'items/')).toEqual(names.map((name) => `items/${name}.jpg`));
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const deliveries = await hooks.received('/items', 1);
      expect(deliveries).toHaveLength(1);
      expect(JSON.parse(deliveries[0].body.toString()).data).toMatchObject({ status: 'DONE' });
    },
    2 * RECOVERY_MS,
  );

  it(
    'sends again the webhook whose retry was lost, once',
    async () => {
      const task = await submit('/v1/image/edit/async', {
        input: images.url(`/in/${names[1]}.jpg`),
        webhook_url: hooks.url('/retried'),
      });
      // The first delivery answered 503: its retry waits 60 s in the queue, and is lost with it.
      await hooks.received('/retried', 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await loseQueue();
      const deliveries = await hooks.received('/retried', 2, RECOVERY_MS);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      expect(hooks.deliveries.filter((delivery) => delivery.path === '/retried')).toHaveLength(2);
      expect(deliveries[1].headers['webhook-id']).toBe(deliveries[0].headers['webhook-id']);
      expect(JSON.parse(deliveries[1].body.toString()).data).toMatchObject({ status: 'DONE' });
      expect((await api.get(task)).body.data.status).toBe('DONE');
    },
    2 * RECOVERY_MS,
  );

  it(
    'ends a task whose items all ended when the job that would have ended it was lost',
    async () => {
      // As a worker killed between its task's last item and the task's end leaves it, with the queue lost since.
      const id = await insertTaskRows(app, await adminAccountId(app), {
        status: 'PROCESSING',
        items: 3,
        webhookUrl: hooks.url('/ended'),
      });
      const ended = await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${id}`, RECOVERY_MS);
      expect(ended.status).toBe('DONE');
      expect(ended.progress).toEqual({ total: 3, done: 3, failed: 0, retrying: 0 });
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      expect(await hooks.received('/ended', 1)).toHaveLength(1);
    },
    2 * RECOVERY_MS,
  );

  it(
    'counts what it queued again and logs one line per task, with ids only',
    async () => {
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((res) => res.text());
      const count = (what: string) =>
        Number(new RegExp(`^atelier_task_reconciled_total\\{what="${what}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
      expect(count('expand')).toBe(2);
      expect(count('item')).toBeGreaterThanOrEqual(2);
      expect(count('webhook')).toBe(1);
      const lines = worker!
        .output()
        .split('\n')
        .filter((line) => line.includes('the queue had lost its work'));
      expect(lines.length).toBeGreaterThanOrEqual(4);
      for (const line of lines) expect(line).not.toContain('http');
    },
    2 * RECOVERY_MS,
  );
});
