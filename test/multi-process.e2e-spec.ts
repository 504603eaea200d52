import { PutObjectCommand } from '@aws-sdk/client-s3';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBmp, type Rgb } from './fixtures/images';
import { testPostgresUrl, testRedisUrl } from './helpers/databases';
import { call, client } from './helpers/http';
import { decode, pixelAt, colourDistance } from './helpers/image-bytes';
import {
  freePort,
  problemLines,
  startApiProcess,
  strayStderr,
  type RunningApi,
  type RunningProcess,
} from './helpers/process';
import { startImageServer } from './helpers/image-server';
import { createS3Storages, listKeys, readObject, startS3Server, type S3TestServer } from './helpers/s3-server';
import { startWorker, waitForProgress, waitForTask } from './helpers/tasks';
import { scratchEnvironment } from './helpers/test-app';

/*
 * Many machines in one deployment (issue 17, operations at scale): two API processes and two worker processes
 * (the built apps, real child processes) on one PostgreSQL database and one Redis prefix run a batch of 300
 * images from one folder of an s3rver storage into another. Midway one worker is killed with SIGKILL and one API is stopped
 * and started again on its port. Every input must end with exactly one output (the right image, the right
 * size), the task DONE with one result per input, a key's rate limit shared by both APIs (the restarted one
 * included), and no process may log an error.
 *
 * Scaled mode only: several processes share state only through PostgreSQL and Redis. In embedded mode (SQLite,
 * in-memory counters, tasks run by the one API process) there is one process by design; its crash story is
 * test/batch-crash.e2e-spec.ts.
 */

const COUNT = 300;
/** One bucket, one storage (`media`): inputs in its folder `photos/`, outputs in its folder `run/`. */
const BUCKET = 'multi';
/** Inputs are WIDTH x HEIGHT, resized to fit BOX x BOX: outputs are BOX x BOX * HEIGHT / WIDTH. */
const [WIDTH, HEIGHT, BOX] = [24, 16, 12];
/** The per-minute rate limit of the shared key. */
const LIMIT = 10;

const names = Array.from({ length: COUNT }, (_, i) => `image-${String(i).padStart(3, '0')}`);

/** Input `i`'s one colour: distinct for every input (steps of 10, kept exactly by resizing and PNG). */
function colourOf(i: number): Rgb {
  return [40 + (i % 20) * 10, 40 + Math.floor(i / 20) * 10, 128];
}

/** A tiny BMP of one colour, written by hand (no encoder): the service reads it as any other input. */
function inputImage(i: number): Buffer {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let at = 0; at < pixels.length; at += 3) pixels.set(colourOf(i), at);
  return encodeBmp(pixels, { width: WIDTH, height: HEIGHT, channels: 3, bits: 24, topDown: false });
}

const SCALED = Boolean(testRedisUrl && testPostgresUrl);
const TITLE = SCALED
  ? 'two APIs and two workers on one PostgreSQL and Redis'
  : 'two APIs and two workers on one PostgreSQL and Redis (skipped: scaled mode only; set DATABASE_URL and REDIS_URL)';

describe.skipIf(!SCALED)(TITLE, () => {
  let s3: S3TestServer;
  /** The scratch databases and folders of the tests, dropped after the processes that use them stopped. */
  const cleanups: Array<() => Promise<void>> = [];
  /** Every process this suite started, the stopped and killed ones included: their logs are checked. */
  const started: Array<{ name: string; process: RunningProcess }> = [];

  beforeAll(async () => {
    s3 = await startS3Server([BUCKET]);
    for (let i = 0; i < COUNT; i += 50) {
      await Promise.all(
        names
          .slice(i, i + 50)
          .map((name, j) =>
            s3.client.send(
              new PutObjectCommand({ Bucket: BUCKET, Key: `photos/${name}.bmp`, Body: inputImage(i + j) }),
            ),
          ),
      );
    }
  }, 60_000);

  // Every child is stopped even when the test failed midway (SIGTERM, then SIGKILL after 10 s: process.ts).
  afterAll(async () => {
    await Promise.allSettled(started.map(({ process }) => process.stop()));
    // In reverse: a test's own connections and servers before its scratch database and folder.
    for (const cleanup of cleanups.reverse()) await Promise.allSettled([cleanup()]);
    await s3?.stop();
  }, 60_000);

  async function startApi(name: string, env: Record<string, string | undefined>): Promise<RunningApi> {
    const api = await startApiProcess(env);
    started.push({ name, process: api });
    return api;
  }

  async function startWorkerNamed(name: string, env: Record<string, string | undefined>): Promise<RunningProcess> {
    const worker = await startWorker(env);
    started.push({ name, process: worker });
    return worker;
  }

  /** Creates the storage and the batch through `url`; returns the task's path. */
  async function startBatch(url: string, key: string): Promise<string> {
    await createS3Storages(s3, url, key, { media: BUCKET });
    const res = await client(url, key).post('/v1/image/edit/batch', {
      input: 'storage://media/photos/',
      operations: { resizing: { width: BOX, height: BOX, fit: 'bounds' } },
      output: { destination: 'storage://media/run/', format: 'png' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return `/v1/image/edit/batch/${res.body.data.id}`;
  }

  /**
   * One API on a scratch database, an origin serving one image at `file`, and the settings of its workers (one job
   * at a time, a 1 s lock: a killed worker's job is found stalled soon); `submit` makes a batch of that image.
   */
  async function oneImageDeployment(name: string) {
    const scratch = await scratchEnvironment({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
    cleanups.push(scratch.cleanup);
    const origin = await startImageServer();
    cleanups.push(() => origin.stop());
    const file = `/${name}.bmp`;
    origin.put(file, inputImage(7));
    const api = await startApi('api', scratch.env);
    const adminKey = scratch.env.ADMIN_API_KEY!;
    const submit = async () => {
      const res = await client(api.url, adminKey).post('/v1/image/edit/batch', {
        input: [origin.url(file)],
        output: { format: 'png' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return `/v1/image/edit/batch/${res.body.data.id}`;
    };
    const workerEnv = { ...scratch.env, PUBLIC_BASE_URL: api.url, TASK_CONCURRENCY: '1', WORKER_LOCK_MS: '1000' };
    return { env: scratch.env, adminKey, origin, file, api, workerEnv, submit };
  }

  /** No error or fatal log line, and nothing unexpected on standard error, in any of `processes`. */
  function expectNoErrors(processes: typeof started): void {
    for (const { name, process } of processes) {
      expect(problemLines(process.output(), 'error'), name).toEqual([]);
      expect(strayStderr(process), name).toBe('');
    }
  }

  /** Waits (bounded: 10 s) until `sql` answers a row. */
  async function waitForRow(database: Client, sql: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await database.query(sql)).rowCount === 0) {
      if (Date.now() > deadline) throw new Error(`no row for ${sql} within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Calls with one key, alternately on each API: the statuses, and the body of the first 429. */
  async function spendRateLimit(urls: string[], key: string, calls: number) {
    const statuses: number[] = [];
    let refused: unknown;
    for (let i = 0; i < calls; i++) {
      const res = await call(urls[i % urls.length], 'GET', '/v1/keys', { key });
      statuses.push(res.status);
      if (res.status === 429) refused ??= res.body;
    }
    return { statuses, refused };
  }

  /** Every output is its input's image: the name maps 1:1, the size is the resized one, the colour its own. */
  async function expectOneOutputPerInput(): Promise<void> {
    expect(await listKeys(s3, BUCKET, 'run/')).toEqual(names.map((name) => `run/${name}.png`));
    for (let i = 0; i < COUNT; i += 25) {
      const images = await Promise.all(
        names.slice(i, i + 25).map(async (name) => decode(await readObject(s3, BUCKET, `run/${name}.png`))),
      );
      images.forEach((image, j) => {
        expect([image.width, image.height], names[i + j]).toEqual([BOX, (BOX * HEIGHT) / WIDTH]);
        const centre = pixelAt(image, BOX / 2, (BOX * HEIGHT) / WIDTH / 2);
        expect(colourDistance(centre, colourOf(i + j)), names[i + j]).toBeLessThanOrEqual(2);
      });
    }
  }

  it('a worker killed and an API restarted midway: every input one output, the task DONE, the limit shared', async () => {
    const mine = started.length;
    const scratch = await scratchEnvironment({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
    cleanups.push(scratch.cleanup);
    const adminKey = scratch.env.ADMIN_API_KEY!;
    const env1 = { ...scratch.env, PORT: String(await freePort()) };
    // A short lock: the killed worker's jobs are found stalled (and run by the other worker) about 2 s after it.
    const workerEnv = {
      ...scratch.env,
      PUBLIC_BASE_URL: `http://127.0.0.1:${env1.PORT}`,
      TASK_CONCURRENCY: '2',
      WORKER_LOCK_MS: '2000',
    };
    // All four start together on the fresh database, as a deployment's processes do (migrations take turns).
    const [first, api2, worker1] = await Promise.all([
      startApi('api 1', env1),
      startApi('api 2', scratch.env),
      startWorkerNamed('worker 1', workerEnv),
      startWorkerNamed('worker 2', workerEnv),
    ]);
    let api1: RunningApi = first;

    const limited = await client(api2.url, adminKey).post('/v1/keys', {
      name: 'shared limit',
      scopes: ['admin'],
      rate_limit: { per_minute: LIMIT },
    });
    expect(limited.status, JSON.stringify(limited.body)).toBe(200);

    const path = await startBatch(api1.url, adminKey);
    const seen = await waitForProgress(api2.url, adminKey, path, COUNT / 3);
    worker1.child.kill('SIGKILL');
    await worker1.exited;
    expect(seen, 'the batch ended before the worker was killed').toBeLessThan(COUNT);

    // A graceful stop of API 1 (as a rolling deploy does) while the work goes on, and a new process on its port.
    await api1.stop();
    expect(await api1.exited).toBe(0);
    expect((await client(api2.url, adminKey).get(path)).status).toBe(200);
    api1 = await startApi('api 1, restarted', env1);

    // One key's calls, alternately on the restarted API and the other: one limit in Redis, not one per process.
    const { statuses, refused } = await spendRateLimit([api1.url, api2.url], limited.body.data.key, LIMIT + 4);
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429, 429, 429, 429]);
    expect(refused).toEqual({
      detail: {
        error_code: '2001',
        error_type: 'general',
        error_message: 'Too Many Requests. Rate limit exceeded.',
        error_details: {},
      },
    });

    const task = await waitForTask([api1.url, api2.url], adminKey, path, 90_000);
    expect(task.status).toBe('DONE');
    expect(task.errors).toEqual([]);
    expect(task.progress).toEqual({ total: COUNT, done: COUNT, failed: 0, retrying: 0 });
    const inputs = task.results.map((result: any) => result.input_object.input).sort();
    expect(inputs).toEqual(names.map((name) => `storage://media/photos/${name}.bmp`));
    await expectOneOutputPerInput();

    // No process logged an error: not the survivors when a worker vanished, not an API at its stop or start.
    expectNoErrors(started.slice(mine));
  }, 180_000);

  it('a worker killed after finishing the last item but before ending the task: the next worker ends it', async () => {
    const mine = started.length;
    const { env, adminKey, origin, file, api, workerEnv, submit } = await oneImageDeployment('last');
    const worker1 = await startWorkerNamed('worker 1', workerEnv);
    const database = new Client({ connectionString: env.DATABASE_URL });
    await database.connect();
    cleanups.push(() => database.end());

    // The one item's download waits until the test holds the task table: the worker then writes the output and
    // marks the item DONE (its own table), and blocks on reading the task to end it. Killed there, it leaves
    // the state a crash between those two steps leaves: every item final, the task PROCESSING.
    const download = origin.hold(file);
    const path = await submit();
    await download.arrived;
    await database.query('BEGIN');
    await database.query('LOCK TABLE edit_tasks IN ACCESS EXCLUSIVE MODE');
    download.release();
    await waitForRow(database, `SELECT 1 FROM edit_task_items WHERE status = 'DONE'`);
    await waitForRow(
      database,
      `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
    );
    worker1.child.kill('SIGKILL');
    await worker1.exited;
    await database.query('ROLLBACK');
    const stuck = await client(api.url, adminKey).get(path);
    expect(stuck.body.data.status).toBe('PROCESSING');
    expect(stuck.body.data.progress).toEqual({ total: 1, done: 1, failed: 0, retrying: 0 });

    // The killed worker's job is found stalled and runs again on the next worker: its item is already DONE,
    // and that run must still end the task (before the fix it returned at once: PROCESSING for ever).
    await startWorkerNamed('worker 2', workerEnv);
    const task = await waitForTask(api.url, adminKey, path, 20_000);
    expect(task.status).toBe('DONE');
    expect(task.results).toHaveLength(1);
    expect(origin.hits.get(file), 'the item was edited again').toBe(1);
    expectNoErrors(started.slice(mine));
  }, 60_000);

  it('an image whose worker dies every time it runs: given up after the stalled-job limit, the task ERROR', async () => {
    const mine = started.length;
    const { adminKey, origin, file, api, workerEnv, submit } = await oneImageDeployment('poison');
    let download = origin.hold(file);
    const path = await submit();
    // Each worker dies while it runs the image, as one killed for memory would; the next finds the job stalled
    // and runs it again. BullMQ allows 3 stalls (task-worker.ts, maxStalledCount): the 4th is given up.
    for (let death = 1; death <= 4; death++) {
      const worker = await startWorkerNamed(`worker ${death}`, workerEnv);
      await download.arrived;
      download = origin.hold(file);
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    const last = await startWorkerNamed('worker 5', workerEnv);
    const task = await waitForTask(api.url, adminKey, path, 30_000);
    expect(task.status).toBe('ERROR');
    expect(task.progress).toEqual({ total: 1, done: 0, failed: 1, retrying: 0 });
    expect(task.errors).toEqual([
      expect.objectContaining({
        error:
          'The image could not be processed: the worker editing it stopped before it was done, several ' +
          'times; see the service log.',
        input_object: expect.objectContaining({ input: origin.url(file) }),
      }),
    ]);
    expect(origin.hits.get(file), 'the fifth worker ran the image').toBe(4);
    expect(last.output()).toMatch(/given up after its worker stopped 4 times while running it/);
    expectNoErrors(started.slice(mine));
  }, 90_000);
});
