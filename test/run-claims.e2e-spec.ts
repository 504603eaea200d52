import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EditTaskEntity, EditTaskItemEntity } from '@app/database';
import { TaskRunner } from '../libs/editing/src/tasks/task-runner';
import { quadrantsImage } from './fixtures/images';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { adminAccountId, insertTaskRows } from './helpers/task-rows';
import { startTestApp, type TestApp } from './helpers/test-app';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/*
 * Work run twice (issue 25, item 17): the reconciler adds a job again when it finds it missing, and a stalled job
 * runs again, while its first run may still be under way. Each run first claims its work with a conditional UPDATE
 * (an item: PENDING and not held; a webhook: pending -> sending), so a second run beside the first does nothing:
 * the origin is asked once, the receiver gets one delivery. The runs are called here directly, as two workers
 * given the same job would call them.
 */

let app: TestApp;
let images: ImageServer;
let hooks: WebhookReceiver;
let runner: TaskRunner;
let accountId: number;

beforeAll(async () => {
  images = await startImageServer();
  hooks = await startWebhookReceiver();
  // A claim lasts WORKER_LOCK_MS, renewed every third of it while its run goes on.
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', TASK_ATTEMPTS: '1', WORKER_LOCK_MS: '1000' });
  runner = app.app.get(TaskRunner);
  accountId = await adminAccountId(app);
  images.put('/twice.jpg', await quadrantsImage({ format: 'jpeg', width: 48, height: 32 }));
}, 60_000);

afterAll(async () => {
  await app?.close();
  await images?.stop();
  await hooks?.stop();
});

describe('a run claims its work first', () => {
  it('an item started by one run is not started by a second one beside it: the origin is asked once', async () => {
    const data = app.app.get(DataSource);
    const input = images.url('/twice.jpg');
    const task = await data.getRepository(EditTaskEntity).save({
      accountId,
      kind: 'async',
      status: 'PROCESSING',
      request: { input, operations: { resizing: { width: 16 } } },
      error: null,
      expanded: true,
      itemTotal: 1,
      webhookUrl: null,
      webhookState: 'none',
      finishedAt: null,
    });
    await data.getRepository(EditTaskItemEntity).insert({
      taskId: task.id,
      seq: 0,
      input,
      subPath: '',
      status: 'PENDING',
      attempts: 0,
      queued: true,
    });
    const hold = images.hold('/twice.jpg');
    const first = runner.runItem(task.id, 0, false);
    await hold.arrived;
    // The first run holds the item (its download under way): a second run, not its last attempt, comes back later.
    await expect(runner.runItem(task.id, 0, false)).rejects.toThrow(
      `task ${task.id} item 0: another run of it is under way; trying again later.`,
    );
    // Its last attempt waits for the claim to run out; renewed by the run that holds it, it does not: the item is
    // left to that run.
    await runner.runItem(task.id, 0, true);
    expect(images.hits.get('/twice.jpg')).toBe(1);
    hold.release();
    await first;
    expect(images.hits.get('/twice.jpg')).toBe(1);
    const item = await data.getRepository(EditTaskItemEntity).findOneByOrFail({ taskId: task.id, seq: 0 });
    expect(item).toMatchObject({ status: 'DONE', attempts: 1 });
    expect((await data.getRepository(EditTaskEntity).findOneByOrFail({ id: task.id })).status).toBe('DONE');
  });

  it('a webhook delivered by two runs at once reaches its receiver once', async () => {
    const id = await insertTaskRows(app, accountId, { status: 'DONE', items: 2, webhookUrl: hooks.url('/once') });
    await Promise.all([runner.deliverWebhook(id, true), runner.deliverWebhook(id, true)]);
    // Long enough for a second delivery under way to arrive (both runs have returned: it would be sent already).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.deliveries.filter((delivery) => delivery.path === '/once')).toHaveLength(1);
    const task = await app.app.get(DataSource).getRepository(EditTaskEntity).findOneByOrFail({ id });
    expect(task.webhookState).toBe('sent');
  });
});
