import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, In } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EditTaskEntity, EditTaskItemEntity } from '@app/database';
import { TaskScheduler } from '../libs/editing/src/tasks/task-scheduler';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { adminAccountId } from './helpers/task-rows';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * One tenant with thousands of tasks that have not ended (issue 25, item 6): a fair-scheduling top-up costs the same
 * number of statements with 10 such tasks as with 2,010, and the account's next task is refused with 429 (2004)
 * once it has TASK_ACTIVE_PER_ACCOUNT of them. The tasks are written straight into the database (as an hour of
 * async edits whose input stalls would leave them); every item's input is an origin that stalls, so that in
 * embedded mode (TASK_CONCURRENCY 1) the one item that starts holds its place and the others wait in memory, and in
 * BullMQ mode (no worker here) they wait in Redis: nothing but the top-up under test queries the database.
 */

const FEW = 10;
const MANY = 2_000;
const CAP = FEW + MANY;
/** Items a top-up may hand the queue at once (TASK_OUTSTANDING_PER_ACCOUNT): each measured top-up claims as many. */
const PER_ACCOUNT = 5;

let app: TestApp;
let images: ImageServer;
let accountId: number;
/** The statements the database ran in the context of a counted call. */
const counted = new AsyncLocalStorage<{ queries: number }>();

beforeAll(async () => {
  images = await startImageServer();
  images.stall('/stall.jpg');
  app = await startTestApp({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    TASK_ATTEMPTS: '1',
    TASK_CONCURRENCY: '1',
    TASK_OUTSTANDING_PER_TASK: '1',
    TASK_OUTSTANDING_PER_ACCOUNT: String(PER_ACCOUNT),
    TASK_ACTIVE_PER_ACCOUNT: String(CAP),
  });
  accountId = await adminAccountId(app);
  // Every statement of either driver goes through the connection's logger (logging off or on).
  const logger = app.app.get(DataSource).logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (...args: Parameters<typeof logQuery>) => {
    const counter = counted.getStore();
    if (counter) counter.queries += 1;
    return logQuery(...args);
  };
}, 60_000);

afterAll(async () => {
  // The stalled item's download fails at once, so that the app's shutdown does not wait for it.
  await images?.stop();
  await app?.close();
});

/** `count` running tasks of the account, each with two pending items not yet queued, written in bulk. */
async function insertRunningTasks(count: number): Promise<number[]> {
  const data = app.app.get(DataSource);
  const rows = Array.from({ length: count }, () => ({
    accountId,
    kind: 'async' as const,
    status: 'PROCESSING' as const,
    request: { input: images.url('/stall.jpg'), operations: { resizing: { width: 64 } } },
    error: null,
    expanded: true,
    itemTotal: 2,
    webhookUrl: null,
    webhookState: 'none' as const,
    finishedAt: null,
  }));
  const ids: number[] = [];
  for (let start = 0; start < rows.length; start += 200) {
    const result = await data.getRepository(EditTaskEntity).insert(rows.slice(start, start + 200));
    ids.push(...result.identifiers.map((identifier) => Number(identifier.id)));
  }
  const items = ids.flatMap((taskId) =>
    [0, 1].map((seq) => ({
      taskId,
      seq,
      input: images.url('/stall.jpg'),
      subPath: '',
      status: 'PENDING' as const,
      attempts: 0,
      queued: false,
    })),
  );
  for (let start = 0; start < items.length; start += 400) {
    await data.getRepository(EditTaskItemEntity).insert(items.slice(start, start + 400));
  }
  return ids;
}

/** Ends (DONE, as a run would) every item the scheduler handed over, so that their places are free again. */
async function endQueuedItems(): Promise<number> {
  const items = app.app.get(DataSource).getRepository(EditTaskItemEntity);
  const queued = await items.find({ select: { id: true }, where: { status: 'PENDING', queued: true } });
  if (queued.length > 0) {
    await items.update({ id: In(queued.map((item) => item.id)) }, { status: 'DONE', finishedAt: new Date() });
  }
  return queued.length;
}

/** One top-up of the account: the statements it ran, and the items it handed the queue. */
async function countedTopUp(): Promise<{ queries: number; handed: number }> {
  const counter = { queries: 0 };
  await counted.run(counter, () => app.app.get(TaskScheduler).topUp(accountId));
  const items = app.app.get(DataSource).getRepository(EditTaskItemEntity);
  return { queries: counter.queries, handed: await items.countBy({ status: 'PENDING', queued: true }) };
}

describe('one account with thousands of tasks that have not ended', () => {
  it("a top-up runs as many statements with 2,010 of the account's tasks as with 10", async () => {
    await insertRunningTasks(FEW);
    await app.app.get(TaskScheduler).topUp(accountId);
    expect(await endQueuedItems()).toBe(PER_ACCOUNT);
    const few = await countedTopUp();
    expect(few.handed).toBe(PER_ACCOUNT);

    await insertRunningTasks(MANY);
    expect(await endQueuedItems()).toBe(PER_ACCOUNT);
    const many = await countedTopUp();
    expect(many.handed).toBe(PER_ACCOUNT);
    // A read, a claim (and in PostgreSQL the account's row lock and the transaction): before, 1 + 2 per task.
    expect(few.queries).toBeLessThanOrEqual(6);
    expect(many.queries).toBe(few.queries);
  }, 120_000);

  it('refuses a new task with 429 (2004, wrapped in `detail`) at TASK_ACTIVE_PER_ACCOUNT; one cancelled frees a place', async () => {
    const api = client(app.url, app.adminKey);
    const body = { input: images.url('/stall.jpg'), operations: { resizing: { width: 64 } } };
    const refused = await api.post('/v1/image/edit/async', body);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.body).toEqual({
      detail: {
        error_code: '2004',
        error_type: 'general',
        error_message: `The account has ${CAP} tasks that have not ended (TASK_ACTIVE_PER_ACCOUNT); retry once some have ended, or cancel some.`,
        error_details: {},
      },
    });
    expect(await app.app.get(DataSource).getRepository(EditTaskEntity).countBy({ accountId })).toBe(CAP);

    const oldest = await app.app.get(DataSource).getRepository(EditTaskEntity).findOneByOrFail({ accountId });
    expect((await api.delete(`/v1/tasks/${oldest.id}`)).status).toBe(200);
    const accepted = await api.post('/v1/image/edit/async', body);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.data.status).toMatch(/ACCEPTED|PROCESSING/);
  }, 60_000);
});
