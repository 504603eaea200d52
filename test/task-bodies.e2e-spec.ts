import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_PAGE_ITEMS, TaskQueue } from '@app/editing';
import { TaskRunner } from '../libs/editing/src/tasks/task-runner';
import { TaskRows } from '../libs/database/src';
import { WebhookSender } from '../libs/editing/src/webhooks/webhook-sender';
import { client } from './helpers/http';
import type { RunningProcess } from './helpers/process';
import { adminAccountId, failedOf, insertTaskRows, type TaskRowsOptions } from './helpers/task-rows';
import { startWorkerFor } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';
import { startWebhookReceiver, verifies, type WebhookReceiver } from './helpers/webhook-receiver';

/*
 * A task read by id, and its webhook, are written page by page from the database (TaskBodies) rather than built
 * in memory: the bytes must be exactly those of the whole view (TaskRunner.view of the stored task, what the route answered before),
 * whatever the task's size, its kind and the page boundaries. Tasks are written straight into the database.
 * In the suite's mode: embedded, or with REDIS_URL the built worker delivers the webhook.
 */

let app: TestApp;
let receiver: WebhookReceiver;
let worker: RunningProcess | undefined;
let accountId: number;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  worker = await startWorkerFor(app);
  accountId = await adminAccountId(app);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await receiver?.stop();
});

const routeOf = (kind: string, id: number) => `/v1/image/edit/${kind}/${id}`;

/** The body the route answered before it streamed: the whole view, enveloped, serialised at once. */
async function wholeBody(kind: 'batch' | 'async', id: number): Promise<string> {
  const task = await app.app.get(TaskRows).findOwned(accountId, id, kind);
  expect(task, `task ${id}`).not.toBeNull();
  return JSON.stringify({ data: await app.app.get(TaskRunner).view(task!) });
}

async function streamedBody(kind: 'batch' | 'async', id: number): Promise<Response> {
  return fetch(`${app.url}${routeOf(kind, id)}`, { headers: { authorization: `Bearer ${app.adminKey}` } });
}

describe('GET of a task by id, streamed', () => {
  const cases: [string, TaskRowsOptions][] = [
    ['no items, a task-level error', { items: 0, status: 'ERROR', error: 'The folder storage://x/ holds no images.' }],
    ['one item', { items: 1 }],
    ['a page and one more', { items: BODY_PAGE_ITEMS + 1, status: 'ERROR' }],
    ['still running, with retrying items', { items: 40, status: 'PROCESSING', retrying: 25 }],
    ['5,000 items', { items: 5_000 }],
  ];

  it.each(cases)(
    'writes the same bytes as the whole view: %s',
    async (_name, options) => {
      const id = await insertTaskRows(app, accountId, options);
      const res = await streamedBody('batch', id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      const text = await res.text();
      const expected = await wholeBody('batch', id);
      // parsed first, for a readable difference; then byte for byte
      expect(JSON.parse(text)).toEqual(JSON.parse(expected));
      expect(text).toBe(expected);
      const { progress, results, errors } = JSON.parse(text).data;
      const failed = failedOf(options.items);
      expect(progress).toMatchObject({ done: options.items - failed, failed });
      expect(results).toHaveLength(options.items - failed);
      expect(errors).toHaveLength(failed + (options.error ? 1 : 0));
    },
    60_000,
  );

  it('writes an asynchronous edit with its `result`, none before it has one', async () => {
    const done = await insertTaskRows(app, accountId, { kind: 'async', items: 1 });
    const running = await insertTaskRows(app, accountId, { kind: 'async', items: 0, status: 'PROCESSING' });
    for (const id of [done, running]) {
      const text = await (await streamedBody('async', id)).text();
      expect(text).toBe(await wholeBody('async', id));
    }
    const body = JSON.parse(await (await streamedBody('async', done)).text());
    expect(body.data.result).toEqual(body.data.results[0]);
    expect(body.data.result.output_object.claid_storage_uri).toBe('storage://results/out/0.webp');
    expect(JSON.parse(await (await streamedBody('async', running)).text()).data).not.toHaveProperty('result');
  });

  it('answers a missing task, or one of the other kind, with the Error body before any byte', async () => {
    const id = await insertTaskRows(app, accountId, { items: 2 });
    for (const path of [routeOf('async', id), routeOf('batch', 999_999)]) {
      const res = await client(app.url, app.adminKey).get(path);
      expect(res.status, res.text).toBe(404);
      expect(res.body).toMatchObject({ error_code: '1701', error_type: 'image' });
    }
  });
});

describe('the webhook of a large task', () => {
  it('delivers the streamed body, signed over exactly those bytes', async () => {
    const secret = (await client(app.url, app.adminKey).post('/v1/webhooks/secret')).body.data.secret as string;
    const items = 2 * BODY_PAGE_ITEMS + 7;
    const id = await insertTaskRows(app, accountId, { items, webhookUrl: receiver.url('/large') });
    await app.app.get(TaskQueue).deliverWebhook(id);
    const [delivery] = await receiver.received('/large', 1, 30_000);
    expect(verifies(secret, delivery)).toBe(true);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(Number(delivery.headers['content-length'])).toBe(delivery.body.length);
    // the worker (scaled mode) has the app's real URL as its PUBLIC_BASE_URL, the in-process API the default
    const base = worker ? app.url : app.config.publicBaseUrl;
    const expected = (await wholeBody('batch', id)).replace(app.config.publicBaseUrl, base);
    expect(delivery.body.toString('utf8') === expected, 'the delivered body is the whole view').toBe(true);
    expect(JSON.parse(delivery.body.toString('utf8')).data.results).toHaveLength(items - failedOf(items));
  }, 60_000);

  it('never ends a body other than the one it signed: the receiver gets a cut request, the sender an error', async () => {
    let reads = 0;
    // a task that changed between the signing pass and the sending pass
    const body = async function* () {
      reads++;
      yield Buffer.from('{"data":{"id":');
      yield Buffer.from(reads === 1 ? '1}}' : '2}}');
    };
    const sender = app.app.get(WebhookSender);
    const task = { id: 1, accountId, createdAt: new Date() };
    await expect(sender.send(task, receiver.url('/changed'), body)).rejects.toThrow();
    expect(reads).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.deliveries.filter((delivery) => delivery.path === '/changed')).toHaveLength(0);
  });
});
