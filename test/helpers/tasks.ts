import { expect } from 'vitest';
import { call, type ApiResponse } from './http';
import { startProcess, WORKER_MAIN, type RunningProcess } from './process';
import type { TestApp } from './test-app';

/** Task statuses that do not change any more. */
export const FINAL = ['DONE', 'ERROR', 'CANCELLED'];

/**
 * Polls a task until it is final (bounded: at most `timeoutMs`), checking on the way that its status never
 * moves backwards; returns the final body's `data`. With several base URLs (API processes on one database) it
 * asks each in turn.
 */
export async function waitForTask(
  base: string | string[],
  key: string,
  path: string,
  timeoutMs = 60_000,
): Promise<Record<string, any>> {
  const order = ['ACCEPTED', 'PROCESSING', 'DONE', 'ERROR', 'CANCELLED'];
  const bases = typeof base === 'string' ? [base] : base;
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  for (let poll = 0; Date.now() < deadline; poll++) {
    const res: ApiResponse = await call(bases[poll % bases.length], 'GET', path, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = res.body.data;
    // PAUSED <-> PROCESSING is the one way back a task may go (docs/batch.md): both rank as running.
    const rank = task.status === 'PAUSED' ? 1 : Math.min(order.indexOf(task.status), 2);
    expect(rank, `status went from ${order[last]} to ${task.status}`).toBeGreaterThanOrEqual(last);
    last = rank;
    if (FINAL.includes(task.status)) return task;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${path} did not end within ${timeoutMs} ms`);
}

/** Waits (bounded) until at least `done` items of the task are done; returns the count seen. */
export async function waitForProgress(
  base: string,
  key: string,
  path: string,
  done: number,
  timeoutMs = 60_000,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await call(base, 'GET', path, { key });
    if (res.body.data.progress.done >= done) return res.body.data.progress.done;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`fewer than ${done} items done within ${timeoutMs} ms`);
}

/**
 * In scaled mode (the suite runs with REDIS_URL) task work needs a worker: starts the built worker app on the
 * test app's database, Redis prefix and DATA_DIR. In embedded mode the API runs the work itself: undefined.
 */
export async function startWorkerFor(app: Pick<TestApp, 'env' | 'url'>, env: Record<string, string> = {}) {
  if (!app.env.REDIS_URL) return undefined;
  return startWorker({ ...app.env, PUBLIC_BASE_URL: app.url, ...env });
}

/** Starts the built worker app and waits until it reports it is connected to the queue (bounded). */
export async function startWorker(env: Record<string, string | undefined>): Promise<RunningProcess> {
  const worker = startProcess(WORKER_MAIN, [], env);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (worker.output().includes('connected to queue')) return worker;
    if (worker.child.exitCode !== null) throw new Error(`worker exited early:\n${worker.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await worker.stop();
  throw new Error(`worker did not start:\n${worker.output()}`);
}
