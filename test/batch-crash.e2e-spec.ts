import { PutObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisUrl } from './helpers/databases';
import { client } from './helpers/http';
import { problemLines, startApiProcess, type RunningApi, type RunningProcess } from './helpers/process';
import { createS3Storages, listKeys, startS3Server, type S3TestServer } from './helpers/s3-server';
import { startWorker, waitForProgress, waitForTask } from './helpers/tasks';
import { scratchEnvironment, startTestApp, type TestApp } from './helpers/test-app';

/*
 * Crash safety (issue: batch and asynchronous editing): a batch of 200 images, the process running it killed
 * with SIGKILL midway and started again. Every input must end with exactly one output of its name (none
 * missing, none extra), one result each, and the task DONE. Embedded mode kills the API (the task resumes at
 * its next start); BullMQ mode kills the worker (its jobs are found stalled and run by the new worker).
 *
 * Graceful shutdown: the same batch, the process sent SIGTERM midway. It must stop taking work, finish the
 * items in hand (no attempt fails: a failed attempt logs a warning; none is left locked) and exit by itself
 * with code 0; the next process finishes the task.
 */

const COUNT = 200;
const IN = 'crash-in';
const OUT = 'crash-out';
let s3: S3TestServer;

const names = Array.from({ length: COUNT }, (_, i) => `photo-${String(i).padStart(3, '0')}`);

beforeAll(async () => {
  s3 = await startS3Server([IN, OUT]);
  const base = await sharp({
    create: {
      width: 640,
      height: 480,
      channels: 3,
      background: { r: 0, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg({ quality: 90 })
    .toBuffer();
  for (let i = 0; i < COUNT; i += 20) {
    await Promise.all(
      names
        .slice(i, i + 20)
        .map((name) => s3.client.send(new PutObjectCommand({ Bucket: IN, Key: `photos/${name}.jpg`, Body: base }))),
    );
  }
}, 120_000);

afterAll(async () => {
  await s3?.stop();
});

/** Creates the storages and the batch; returns the task's path. */
async function startBatch(url: string, key: string, output: string): Promise<string> {
  await createS3Storages(s3, url, key, { in: IN, out: OUT });
  const res = await client(url, key).post('/v1/image/edit/batch', {
    input: 'storage://in/photos/',
    operations: { resizing: { width: 320, height: 320, fit: 'bounds' }, adjustments: { sharpness: 40 } },
    output: `storage://out/${output}/`,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return `/v1/image/edit/batch/${res.body.data.id}`;
}

async function expectExactlyOnce(task: Record<string, any>, output: string): Promise<void> {
  expect(task.status).toBe('DONE');
  expect(task.errors).toEqual([]);
  expect(task.progress).toEqual({ total: COUNT, done: COUNT, failed: 0, retrying: 0 });
  const inputs = task.results.map((result: any) => result.input_object.input);
  expect(new Set(inputs).size).toBe(COUNT);
  expect(await listKeys(s3, OUT, `${output}/`)).toEqual(names.map((name) => `${output}/${name}.jpg`));
}

/** Whether the process ended by itself within `ms` (bounded; it is not killed here). */
async function exitsWithin(running: RunningProcess, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const ended = await Promise.race([running.exited.then(() => true), late]);
  clearTimeout(timer);
  return ended;
}

/** Whether the process logs `text` within `ms` (bounded poll). */
async function logsWithin(running: RunningProcess, text: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!running.output().includes(text)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Embedded mode: an API process runs the batch, `interrupt` ends that process midway (SIGKILL or SIGTERM, with
 * its own checks), a new API process resumes the task (`resumed` checks it), and every input must end with
 * exactly one output.
 */
async function interruptEmbedded(
  output: string,
  interrupt: (api: RunningApi, key: string, path: string) => Promise<void>,
  resumed: (api: RunningApi, key: string, path: string) => Promise<void> = async () => {},
): Promise<void> {
  const scratch = await scratchEnvironment({ FETCH_ALLOW_HOSTS: '127.0.0.1', TASK_CONCURRENCY: '2' });
  const env = { ...scratch.env, REDIS_URL: undefined, REDIS_PREFIX: undefined };
  const key = scratch.env.ADMIN_API_KEY!;
  let api: RunningApi | undefined = await startApiProcess(env);
  try {
    const path = await startBatch(api.url, key, output);
    await interrupt(api, key, path);
    api = await startApiProcess(env);
    await resumed(api, key, path);
    const task = await waitForTask(api.url, key, path, 120_000);
    await expectExactlyOnce(task, output);
  } finally {
    await api?.stop();
    await scratch.cleanup();
  }
}

/**
 * BullMQ mode: a worker process runs the batch (the API in this process), `interrupt` ends the worker midway,
 * a new worker (same WORKER_LOCK_MS) must finish the task within `finishMs`, one output per input.
 */
async function interruptWorker(
  output: string,
  lockMs: number,
  finishMs: number,
  interrupt: (worker: RunningProcess, app: TestApp, path: string) => Promise<void>,
): Promise<void> {
  let app: TestApp | undefined;
  let worker: RunningProcess | undefined;
  try {
    app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
    const workerEnv = { ...app.env, PUBLIC_BASE_URL: app.url, TASK_CONCURRENCY: '2', WORKER_LOCK_MS: String(lockMs) };
    worker = await startWorker(workerEnv);
    const path = await startBatch(app.url, app.adminKey, output);
    await interrupt(worker, app, path);
    worker = await startWorker(workerEnv);
    const task = await waitForTask(app.url, app.adminKey, path, finishMs);
    await expectExactlyOnce(task, output);
  } finally {
    await worker?.stop();
    await app?.close();
  }
}

describe('a batch survives SIGKILL', () => {
  it('embedded mode: the API is killed midway and the task resumes at its next start', async () => {
    await interruptEmbedded('embedded', async (api, key, path) => {
      const seen = await waitForProgress(api.url, key, path, 30);
      api.child.kill('SIGKILL');
      await api.exited;
      expect(seen).toBeLessThan(COUNT);
    });
  }, 240_000);

  it.skipIf(!testRedisUrl)(
    'BullMQ mode: the worker is killed midway and a new worker finishes the task',
    async () => {
      // A short lock: the killed worker's jobs are found stalled soon after.
      await interruptWorker('bullmq', 2_000, 120_000, async (worker, app, path) => {
        const seen = await waitForProgress(app.url, app.adminKey, path, 30);
        worker.child.kill('SIGKILL');
        await worker.exited;
        expect(seen).toBeLessThan(COUNT);
      });
    },
    240_000,
  );
});

describe('graceful shutdown: SIGTERM midway stops taking work and finishes what is in hand', () => {
  it('embedded mode: the API finishes its items in hand and exits; its next start finishes the task', async () => {
    await interruptEmbedded(
      'embedded-term',
      async (api, key, path) => {
        await waitForProgress(api.url, key, path, 30);
        api.child.kill('SIGTERM');
        expect(await exitsWithin(api, 30_000), 'the API did not exit within 30 s of SIGTERM').toBe(true);
        expect(await api.exited).toBe(0);
        const output = api.output();
        expect(output).toMatch(/Stopped; the items in hand finished in \d+ ms/);
        expect(problemLines(output)).toEqual([]);
      },
      async (api, key, path) => {
        expect(await logsWithin(api, 'resuming 1 unfinished task(s)', 10_000)).toBe(true); // it stopped taking items
        const resumed = await client(api.url, key).get(path);
        expect(resumed.body.data.progress.failed).toBe(0); // and those in hand did not fail
      },
    );
  }, 240_000);

  it.skipIf(!testRedisUrl)(
    'BullMQ mode: the worker finishes its jobs in hand and exits, leaving none locked; a new worker finishes the task',
    async () => {
      // A lock far longer than the test waits: a job left locked by the stopped worker would only run again
      // after it runs out (the stalled-job check), so the new worker could not finish the task in time.
      await interruptWorker('bullmq-term', 300_000, 90_000, async (worker, app, path) => {
        await waitForProgress(app.url, app.adminKey, path, 30);
        worker.child.kill('SIGTERM');
        expect(await exitsWithin(worker, 30_000), 'the worker did not exit within 30 s of SIGTERM').toBe(true);
        expect(await worker.exited).toBe(0);
        const output = worker.output();
        expect(output).toMatch(/Stopped taking jobs; those in hand finished in \d+ ms/);
        expect(output).toContain('Atelier worker stopped (SIGTERM)');
        expect(problemLines(output)).toEqual([]);
        const stopped = await client(app.url, app.adminKey).get(path);
        expect(stopped.body.data.progress.done).toBeLessThan(COUNT);
        expect(stopped.body.data.progress.failed).toBe(0);
      });
    },
    240_000,
  );
});
