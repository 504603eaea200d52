import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { freePort, type RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * URLs carry secrets: presigned signatures in the query, webhook tokens in the path. A failed task (items,
 * webhook) is logged and reported, but none of those secrets may reach a log line, whichever process does the
 * work (the API in embedded mode, the worker with REDIS_URL), nor an item's error message in the task body.
 */

const SIGNATURE = 'SECRETsig0123456789abcdef0123456789abcdef';
const PATH_TOKEN = 'SECRETpath7f3a9c2e1b8d4f6a';
const HOOK_TOKEN = 'SECREThook5d1e7b3c9a2f8e4d';

let app: TestApp;
let images: ImageServer;
let worker: RunningProcess | undefined;

/** Every line both processes logged so far. */
function allLogs(): string[] {
  return [...app.logs, ...(worker?.output().split('\n') ?? [])].filter(Boolean);
}

/** Waits (bounded) until a log line matches; the webhook's last attempt is logged after the task is final. */
async function waitForLog(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = allLogs().find((entry) => pattern.test(entry));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no log line matched ${pattern}:\n${allLogs().join('\n')}`);
}

beforeAll(async () => {
  images = await startImageServer();
  images.put('/ok.png', await quadrantsImage({ format: 'png', width: 16, height: 16 }));
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', TASK_ATTEMPTS: '2', TASK_RETRY_DELAY_MS: '20' });
  worker = await startWorkerFor(app);
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
});

describe('secrets in URLs never reach the logs', () => {
  it('a failed batch with a presigned input, a token in an input path and a webhook token path', async () => {
    const closed = await freePort();
    const presigned = images.url(`/missing.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${SIGNATURE}`);
    const tokenPath = `http://127.0.0.1:${closed}/shared/${PATH_TOKEN}/a.jpg?X-Amz-Signature=${SIGNATURE}`;
    const res = await client(app.url, app.adminKey).post('/v1/image/edit/batch', {
      input: [presigned, tokenPath, images.url('/ok.png')],
      webhook_url: `http://127.0.0.1:${closed}/hooks/${HOOK_TOKEN}`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${res.body.data.id}`);
    expect(task.status).toBe('ERROR');
    expect(task.progress).toEqual({ total: 3, done: 1, failed: 2, retrying: 0 });

    // The item failures and the undelivered webhook were logged, each URL in its described form.
    await waitForLog(/webhook \S+ not delivered/);
    const logs = allLogs();
    expect(logs.filter((line) => line.includes('SECRET'))).toEqual([]);
    expect(logs.some((line) => line.includes('/missing.jpg?[redacted]'))).toBe(true);
    expect(logs.some((line) => line.includes('/shared/[redacted]/a.jpg?[redacted]'))).toBe(true);
    expect(logs.some((line) => line.includes(`127.0.0.1:${closed}/hooks/[redacted]`))).toBe(true);

    // The task body keeps what the client sent as the item's input, but no message echoes the secrets.
    expect(task.errors.map((error: { input_object: { input: string } }) => error.input_object.input).sort()).toEqual(
      [presigned, tokenPath].sort(),
    );
    for (const error of task.errors) expect(error.error).not.toContain('SECRET');
  });
});
