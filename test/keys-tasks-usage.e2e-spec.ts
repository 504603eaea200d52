import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';
import type { RunningProcess } from './helpers/process';

/*
 * The API the dashboard and the command line stand on (issue 16): a key's name, scopes and limits changed after
 * creation, the account's tasks listed page by page, a task's results and errors in pages, and a key's usage.
 */

let app: TestApp;
let worker: RunningProcess | undefined;
let images: ImageServer;
let operator: ReturnType<typeof client>;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', TASK_ATTEMPTS: '1' });
  worker = await startWorkerFor(app);
  operator = client(app.url, app.adminKey);
  images.put('/a.jpg', await quadrantsImage({ format: 'jpeg', width: 64, height: 48 }));
  images.put('/not-an-image.jpg', Buffer.from('plain text, not a picture'));
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
});

async function newKey(body: Record<string, unknown>): Promise<{ id: number; key: string }> {
  const res = await operator.post('/v1/keys', body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('PATCH /v1/keys/{id}', () => {
  it('changes scopes (in effect at once), name and quota; the secret is never shown again', async () => {
    const created = await newKey({ name: 'pipeline', scopes: ['image_editing'], quota: 100 });
    const pipeline = client(app.url, created.key);
    expect((await pipeline.get('/v1/storage/storages')).status).toBe(403);
    const changed = await operator.patch(`/v1/keys/${created.id}`, {
      name: 'pipeline (EU)',
      scopes: ['image_editing', 'storage'],
      quota: null,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({
      id: created.id,
      name: 'pipeline (EU)',
      scopes: ['image_editing', 'storage'],
      quota: null,
    });
    expect(changed.body.data).not.toHaveProperty('key');
    expect(changed.text).not.toContain(created.key);
    expect((await pipeline.get('/v1/storage/storages')).status).toBe(200);
    const limited = await operator.patch(`/v1/keys/${created.id}`, { quota: 5 });
    expect(limited.body.data.quota).toBe(5);
  });

  it("lets an account's own admin key rename and rescope, but not lift the limits an operator set", async () => {
    const admin = await newKey({ name: 'acme admin', scopes: ['admin'], account: 'acme', quota: 20 });
    const acme = client(app.url, admin.key);
    const worker = await acme.post('/v1/keys', { name: 'worker', scopes: ['image_editing'], quota: 5 });
    expect(worker.status, worker.text).toBe(200);
    const renamed = await acme.patch(`/v1/keys/${worker.body.data.id}`, { name: 'worker 2', scopes: ['storage'] });
    expect(renamed.status, renamed.text).toBe(200);
    const lifted = await acme.patch(`/v1/keys/${worker.body.data.id}`, { quota: 1000, rate_limit: { per_second: 50 } });
    expect(lifted.status).toBe(403);
    expect(Object.keys(lifted.body.error_details).sort()).toEqual(['quota', 'rate_limit']);
    // another account's key is not in reach
    const other = await newKey({ name: 'default worker', scopes: ['image_editing'] });
    expect((await acme.patch(`/v1/keys/${other.id}`, { name: 'mine now' })).status).toBe(404);
  });

  it('refuses a revoked key (409), an unknown one (404) and an empty change (422)', async () => {
    const created = await newKey({ name: 'short-lived', scopes: ['storage'] });
    expect((await operator.delete(`/v1/keys/${created.id}`)).status).toBe(200);
    const revoked = await operator.patch(`/v1/keys/${created.id}`, { name: 'back' });
    expect(revoked.status).toBe(409);
    expect(revoked.body.error_code).toBe('1203');
    expect((await operator.patch('/v1/keys/999999', { name: 'nobody' })).status).toBe(404);
    expect((await operator.patch(`/v1/keys/${created.id}`, {})).status).toBe(422);
    expect((await operator.patch(`/v1/keys/${created.id}`, { quota: -1 })).status).toBe(422);
    // a name is printable text (PostgreSQL refuses NUL in text: found by the fuzz suite as a 500)
    expect((await operator.post('/v1/keys', { name: 'a\u0000b', scopes: ['storage'] })).status).toBe(422);
    expect((await operator.patch(`/v1/keys/${created.id}`, { name: 'tab\there' })).status).toBe(422);
  });
});

describe('the tasks of an account, page by page', () => {
  let account: ReturnType<typeof client>;
  const ids: number[] = [];
  let batchId: number;

  beforeAll(async () => {
    const admin = await newKey({ name: 'tasks admin', scopes: ['admin'], account: 'tasks-co' });
    account = client(app.url, admin.key);
    for (let i = 0; i < 3; i += 1) {
      const res = await account.post('/v1/image/edit/async', {
        input: images.url('/a.jpg'),
        output: { format: 'png' },
      });
      expect(res.status, res.text).toBe(200);
      ids.push(res.body.data.id);
    }
    const inputs = [
      ...Array.from({ length: 4 }, () => images.url('/a.jpg')),
      images.url('/not-an-image.jpg'),
      images.url('/missing.jpg'),
    ];
    const batch = await account.post('/v1/image/edit/batch', { input: inputs });
    expect(batch.status, batch.text).toBe(200);
    batchId = batch.body.data.id;
    for (const id of ids) await waitForTask(app.url, admin.key, `/v1/image/edit/async/${id}`);
    await waitForTask(app.url, admin.key, `/v1/image/edit/batch/${batchId}`);
  });

  it('lists them newest first with their progress, filters by status and kind, and pages', async () => {
    const all = await account.get('/v1/tasks');
    expect(all.status, all.text).toBe(200);
    expect(all.body.data).toMatchObject({ page: 1, per_page: 20, total: 4 });
    expect(all.body.data.items.map((task: { id: number }) => task.id)).toEqual([batchId, ...[...ids].reverse()]);
    expect(all.body.data.items[0]).toMatchObject({
      kind: 'batch',
      status: 'ERROR',
      progress: { total: 6, done: 4, failed: 2, retrying: 0 },
      result_url: expect.stringMatching(new RegExp(`/v1/image/edit/batch/${batchId}$`)),
    });
    expect(all.body.data.items[1]).toMatchObject({ kind: 'async', status: 'DONE', progress: { total: 1, done: 1 } });
    const second = await account.get('/v1/tasks?per_page=2&page=2');
    expect(second.body.data.items.map((task: { id: number }) => task.id)).toEqual([ids[1], ids[0]]);
    const failed = await account.get('/v1/tasks?status=ERROR');
    expect(failed.body.data.items.map((task: { id: number }) => task.id)).toEqual([batchId]);
    const asyncOnly = await account.get('/v1/tasks?kind=async');
    expect(asyncOnly.body.data.total).toBe(3);
    // another account's tasks are not listed
    expect(
      (await operator.get('/v1/tasks')).body.data.items.some((task: { id: number }) => ids.includes(task.id)),
    ).toBe(false);
    expect((await account.get('/v1/tasks?per_page=101')).status).toBe(422);
    expect((await account.get('/v1/tasks?status=LOST')).status).toBe(422);
  });

  it("reads a task's results and errors in pages, the same objects as the task's own lists", async () => {
    const whole = (await account.get(`/v1/image/edit/batch/${batchId}`)).body.data;
    const first = await account.get(`/v1/tasks/${batchId}/results?per_page=3`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toMatchObject({ page: 1, per_page: 3, total: 4 });
    expect(first.body.data.items).toEqual(whole.results.slice(0, 3));
    const rest = await account.get(`/v1/tasks/${batchId}/results?per_page=3&page=2`);
    expect(rest.body.data.items).toEqual(whole.results.slice(3));
    const summary = await account.get(`/v1/tasks/${batchId}`);
    expect(summary.body.data).toEqual({
      id: batchId,
      kind: 'batch',
      status: 'ERROR',
      progress: whole.progress,
      created_at: whole.created_at,
      finished_at: whole.finished_at,
      result_url: whole.result_url,
    });
    const errors = await account.get(`/v1/tasks/${batchId}/errors`);
    expect(errors.body.data).toMatchObject({ total: 2 });
    expect(errors.body.data.items).toEqual(whole.errors);
    expect((await operator.get(`/v1/tasks/${batchId}/results`)).status).toBe(404);
  });

  it("shows a key's usage, its account's recent errors, and does not count reading it", async () => {
    const created = await newKey({
      name: 'metered',
      scopes: ['image_editing'],
      quota: 10,
      account: 'tasks-co',
      rate_limit: { per_second: 100, per_minute: 60 },
    });
    const metered = client(app.url, created.key);
    expect((await metered.post('/v1/image/edit', { input: images.url('/a.jpg') })).status).toBe(200);
    const first = await metered.get('/v1/usage');
    expect(first.status, first.text).toBe(200);
    const second = await metered.get('/v1/usage');
    expect(second.body.data).toMatchObject({
      key: { id: created.id, name: 'metered', scopes: ['image_editing'] },
      calls_used: 1,
      quota: 10,
      calls_left: 9,
      rate_limit: { per_second: { limit: 100 }, per_minute: { limit: 60 } },
    });
    // three requests of this key so far, one a second refilled: fewer than 60 left in the minute's bucket
    expect(second.body.data.rate_limit.per_minute.remaining).toBeLessThan(60);
    // the account's failures are another key's: this one has none of its own
    expect(second.body.data.recent_errors).toEqual([]);
    const ofAdmin = (await account.get('/v1/usage')).body.data.recent_errors;
    expect(ofAdmin.map((entry: { input: string }) => entry.input).sort()).toEqual(
      [images.url('/missing.jpg'), images.url('/not-an-image.jpg')].sort(),
    );
    expect(ofAdmin[0]).toMatchObject({ task_id: batchId, error: expect.any(String) });
    const ofKey = await operator.get(`/v1/keys/${created.id}/usage`);
    expect(ofKey.status).toBe(200);
    expect(ofKey.body.data.calls_used).toBe(1);
    // only admins read another key's usage
    expect((await metered.get(`/v1/keys/${created.id}/usage`)).status).toBe(403);
  });

  it('shows a scoped key only its own failed inputs, presigned query strings and tokens redacted', async () => {
    const created = await newKey({ name: 'uploader', scopes: ['image_editing'], account: 'tasks-co' });
    const uploader = client(app.url, created.key);
    const signature = 'X-Amz-Credential=AKIAEXAMPLE%2F20260101&X-Amz-Signature=0123456789abcdef0123456789abcdef';
    const presigned = `${images.url('/private/gone.jpg')}?${signature}`;
    const batch = await uploader.post('/v1/image/edit/batch', { input: [presigned] });
    expect(batch.status, batch.text).toBe(200);
    await waitForTask(app.url, created.key, `/v1/image/edit/batch/${batch.body.data.id}`);
    const described = `${images.url('/private/gone.jpg')}?[redacted]`;
    const own = (await uploader.get('/v1/usage')).body.data.recent_errors;
    expect(own).toEqual([expect.objectContaining({ task_id: batch.body.data.id, input: described })]);
    // the account's admin key sees every key's failures, described the same way; no body holds the signature
    const ofAdmin = await account.get('/v1/usage');
    expect(ofAdmin.body.data.recent_errors.map((entry: { input: string }) => entry.input)).toContain(described);
    const ofKey = await operator.get(`/v1/keys/${created.id}/usage`);
    expect(ofKey.body.data.recent_errors).toEqual(own);
    for (const text of [JSON.stringify(own), ofAdmin.text, ofKey.text]) expect(text).not.toContain('X-Amz-Signature');
  });
});
