import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { S3Driver } from '../libs/storage/src/drivers/s3.driver';
import type { ListingLimits } from '../libs/storage/src/drivers/listing-limits';
import { startHostileS3Lister, type HostileListing, type HostileS3Lister } from './helpers/hostile-s3-lister';
import { client } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';
import type { RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';

/*
 * Folder listings against a hostile S3-compatible endpoint (issue 25, item 7): a store that says IsTruncated for
 * ever, hands back a continuation token it gave before, or answers one page of megabytes. The driver stops each
 * with STORAGE_LISTING_REFUSED (1308), having asked for no page past its limit; a folder task stops recording items
 * at TASK_ITEMS_MAX and ends in ERROR saying why.
 */

const fakes: HostileS3Lister[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.stop();
});

async function fake(behaviour: HostileListing, options?: { keysPerPage?: number; hugeBytes?: number }) {
  const started = await startHostileS3Lister(behaviour, options);
  fakes.push(started);
  return started;
}

const LIMITS: ListingLimits = { maxPages: 5, timeoutMs: 600_000, pageMaxBytes: 256 * 1024 };

const driver = (endpoint: string, listing: ListingLimits = LIMITS) =>
  new S3Driver({
    kind: 's3',
    bucket: 'hostile',
    prefix: '',
    endpoint,
    region: 'us-east-1',
    accessKey: 'AK',
    secretKey: 'SK',
    listing,
  });

/** Lists the whole folder; returns how many objects came before the listing failed, and its error. */
async function listAll(target: S3Driver): Promise<{ listed: number; error: unknown }> {
  let listed = 0;
  try {
    for await (const object of target.list('in/', { recursive: true })) listed += object.path ? 1 : 0;
  } catch (error) {
    return { listed, error };
  }
  return { listed, error: undefined };
}

function expectRefused(error: unknown, reason: string): void {
  expect(error).toBeInstanceOf(ServiceException);
  const refused = error as ServiceException;
  expect(refused.codeName).toBe('STORAGE_LISTING_REFUSED');
  expect(refused.definition.code).toBe('1308');
  expect(refused.retryable).toBe(false);
  expect(refused.message).toBe(`The storage's listing was stopped: ${reason}.`);
}

describe('S3Driver.list against a hostile store', () => {
  it('stops a listing that is truncated for ever at STORAGE_LIST_MAX_PAGES pages', async () => {
    const store = await fake('endless');
    const { listed, error } = await listAll(driver(store.endpoint));
    expectRefused(error, 'it has more than 5 pages (STORAGE_LIST_MAX_PAGES)');
    expect(store.listRequests).toHaveLength(5);
    expect(listed).toBe(15);
  });

  it('stops at a continuation token the store gave before, without asking for it again', async () => {
    const store = await fake('repeated-token');
    const { listed, error } = await listAll(driver(store.endpoint));
    expectRefused(error, 'the store answered a continuation token it had given before');
    expect(store.listRequests).toEqual(['', 'loop-token']);
    expect(listed).toBe(6);
  });

  it('refuses a page larger than STORAGE_LIST_PAGE_MAX_BYTES without reading the rest of it', async () => {
    const store = await fake('huge-page', { hugeBytes: 64 * 1024 * 1024 });
    const { listed, error } = await listAll(driver(store.endpoint));
    expectRefused(error, 'a page was larger than 262144 bytes (STORAGE_LIST_PAGE_MAX_BYTES)');
    expect(listed).toBe(0);
  });

  it("refuses a storage check (a listing of one key) answered with megabytes, reading no more than the page's limit", async () => {
    const store = await fake('huge-page', { hugeBytes: 64 * 1024 * 1024 });
    await expect(driver(store.endpoint).check()).rejects.toMatchObject({
      codeName: 'STORAGE_UNREACHABLE',
      message: 'The storage answered a listing too large.',
    });
  });

  it('stops a listing that runs past STORAGE_LIST_TIMEOUT_MS', async () => {
    const store = await fake('endless');
    // A time limit of 1 ms is over before the second page whatever the machine's speed.
    const { error } = await listAll(driver(store.endpoint, { ...LIMITS, maxPages: 10_000, timeoutMs: 1 }));
    expectRefused(error, 'it took longer than 1 ms (STORAGE_LIST_TIMEOUT_MS)');
    expect(store.listRequests.length).toBeLessThan(10_000);
  });
});

describe('a folder task on a hostile store', () => {
  let app: TestApp;
  let worker: RunningProcess | undefined;

  beforeAll(async () => {
    app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', TASK_ATTEMPTS: '1', TASK_ITEMS_MAX: '7' });
    worker = await startWorkerFor(app);
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
  });

  async function folderTask(store: HostileS3Lister, name: string): Promise<Record<string, any>> {
    const api = client(app.url, app.adminKey);
    const made = await api.post('/v1/storage/storages', {
      name,
      type: 's3',
      parameters: {
        bucket: 'hostile',
        endpoint: store.endpoint,
        credentials: { access_key: 'AK', secret_access_key: 'SK' },
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const created = await api.post('/v1/image/edit/batch', {
      input: `storage://${name}/in/`,
      operations: { resizing: { width: 16 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${created.body.data.id}`);
  }

  it('records TASK_ITEMS_MAX items of an endless folder, asks for no page past them, and ends in ERROR saying so', async () => {
    const store = await fake('endless');
    const task = await folderTask(store, 'endless');
    expect(task.status).toBe('ERROR');
    expect(task.progress.total).toBe(7);
    expect(task.errors[0]).toMatchObject({
      error:
        'The folder storage://endless/in/ holds more than 7 images (TASK_ITEMS_MAX): the first 7 were queued, the rest was not listed.',
    });
    // the storage check's page, then the three pages that hold the 8th key
    expect(store.listRequests).toHaveLength(4);
  }, 60_000);

  it('ends a task whose store repeats a continuation token in ERROR with the reason', async () => {
    const store = await fake('repeated-token');
    const task = await folderTask(store, 'looping');
    expect(task.status).toBe('ERROR');
    expect(JSON.stringify(task.errors)).toContain(
      "The storage's listing was stopped: the store answered a continuation token it had given before.",
    );
  }, 60_000);
});
