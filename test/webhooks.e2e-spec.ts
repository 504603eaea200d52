import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EditTaskEntity } from '@app/database';
import { quadrantsImage } from './fixtures/images';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import type { RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';
import { startWebhookReceiver, verifies, type Delivery, type WebhookReceiver } from './helpers/webhook-receiver';

/*
 * Task webhooks as a receiver sees them (docs/batch.md "Webhook"): signed with the account's own secret over the
 * delivery id, the timestamp and the raw body; the secret managed at /v1/webhooks/secret; no redirects followed.
 * In the suite's mode: embedded, or with REDIS_URL the built worker delivers them.
 */

let app: TestApp;
let images: ImageServer;
let receiver: WebhookReceiver;
let worker: RunningProcess | undefined;
/** Admin keys of two more accounts. */
const keys: Record<string, string> = {};

/** The receiver fails the first delivery to a path ending in `/flaky` (503), to show a retry. */
const flakyFirst = (delivery: Delivery, index: number) => ({
  status: delivery.path.endsWith('/flaky') && index === 0 ? 503 : 200,
});

beforeAll(async () => {
  images = await startImageServer();
  images.put('/one.png', await quadrantsImage({ format: 'png', width: 16, height: 16 }));
  receiver = await startWebhookReceiver(flakyFirst);
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', TASK_RETRY_DELAY_MS: '50', TASK_ATTEMPTS: '2' });
  worker = await startWorkerFor(app);
  for (const account of ['tenant-b', 'tenant-c']) {
    const res = await client(app.url, app.adminKey).post('/v1/keys', { name: account, scopes: ['admin'], account });
    expect(res.status, res.text).toBe(200);
    keys[account] = res.body.data.key;
  }
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await receiver?.stop();
  await images?.stop();
});

/** Runs an asynchronous edit of the account's key with a webhook to `path` on the receiver; returns the task. */
async function editWithWebhook(key: string, webhookUrl: string): Promise<Record<string, any>> {
  const res = await client(app.url, key).post('/v1/image/edit/async', {
    input: images.url('/one.png'),
    webhook_url: webhookUrl,
  });
  expect(res.status, res.text).toBe(200);
  return waitForTask(app.url, key, `/v1/image/edit/async/${res.body.data.id}`);
}

async function rotate(key: string): Promise<string> {
  const res = await client(app.url, key).post('/v1/webhooks/secret');
  expect(res.status, res.text).toBe(200);
  return res.body.data.secret;
}

describe('/v1/webhooks/secret', () => {
  it('shows nothing before a secret exists, the secret once on rotation, then only its metadata', async () => {
    const api = client(app.url, keys['tenant-b']);
    const before = await api.get('/v1/webhooks/secret');
    expect(before.status, before.text).toBe(200);
    expect(before.body).toEqual({ data: { set: false, prefix: null, created_at: null, shown: false, previous: null } });

    const rotated = await api.post('/v1/webhooks/secret');
    expect(rotated.status, rotated.text).toBe(200);
    const { secret, prefix, created_at } = rotated.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.data).toEqual({
      set: true,
      prefix: secret.slice(0, 14),
      created_at,
      shown: true,
      previous: null,
      dropped_previous: null,
      secret,
    });
    expect(Math.abs(Date.parse(created_at) - Date.now())).toBeLessThan(300_000);

    const after = await api.get('/v1/webhooks/secret');
    expect(after.body).toEqual({ data: { set: true, prefix, created_at, shown: true, previous: null } });
    expect(after.text).not.toContain(secret.slice(14));
    // Stored encrypted, never logged.
    const rows: { secret: string }[] = await app.app.get(DataSource).query('SELECT secret FROM webhook_secrets');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.secret).toMatch(/^v2\./);
    expect(JSON.stringify(rows)).not.toContain(secret.slice(6));
    expect(app.logs.filter((line) => line.includes(secret.slice(6)))).toEqual([]);
  });

  it('needs the admin scope', async () => {
    const created = await client(app.url, app.adminKey).post('/v1/keys', { name: 'editor', scopes: ['image_editing'] });
    const editor = client(app.url, created.body.data.key);
    for (const res of [await editor.get('/v1/webhooks/secret'), await editor.post('/v1/webhooks/secret')]) {
      expect(res.status).toBe(403);
      expect(res.body.error_code).toBe('113');
    }
  });
});

describe('webhook deliveries', () => {
  it("are signed with the account's secret over id, timestamp and body, and a retry keeps the id", async () => {
    const secret = await rotate(app.adminKey);
    const task = await editWithWebhook(app.adminKey, receiver.url('/a/flaky'));
    const [failed, delivered] = await receiver.received('/a/flaky', 2);
    expect(delivered.headers['content-type']).toBe('application/json');
    expect(delivered.headers['webhook-id']).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(delivered.headers['webhook-id']).toBe(failed.headers['webhook-id']);
    const timestamp = Number(delivered.headers['webhook-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(300);
    expect(delivered.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(delivered.headers['x-signature-sha256']).toBeUndefined();
    expect(verifies(secret, failed)).toBe(true);
    expect(verifies(secret, delivered)).toBe(true);
    expect(JSON.parse(delivered.body.toString('utf8')).data).toMatchObject({ id: task.id, status: 'DONE' });
    // A changed body, id or timestamp does not verify: the signature covers all three.
    const forged = [
      { ...delivered, body: Buffer.from(delivered.body.toString('utf8').replace('DONE', 'ERROR')) },
      { ...delivered, headers: { ...delivered.headers, 'webhook-id': `${delivered.headers['webhook-id']}x` } },
      { ...delivered, headers: { ...delivered.headers, 'webhook-timestamp': String(timestamp + 1) } },
    ];
    for (const delivery of forged) expect(verifies(secret, delivery)).toBe(false);
  });

  it("of one account do not verify with another account's secret", async () => {
    const secretA = await rotate(app.adminKey);
    const secretB = await rotate(keys['tenant-b']);
    await editWithWebhook(app.adminKey, receiver.url('/cross/a'));
    await editWithWebhook(keys['tenant-b'], receiver.url('/cross/b'));
    const [fromA] = await receiver.received('/cross/a', 1);
    const [fromB] = await receiver.received('/cross/b', 1);
    expect([verifies(secretA, fromA), verifies(secretB, fromB)]).toEqual([true, true]);
    expect([verifies(secretB, fromA), verifies(secretA, fromB)]).toEqual([false, false]);
  });

  it('are signed before any secret was asked for (one is created), and a rotation changes the key', async () => {
    const api = client(app.url, keys['tenant-c']);
    await editWithWebhook(keys['tenant-c'], receiver.url('/c/first'));
    const [first] = await receiver.received('/c/first', 1);
    expect(first.headers['webhook-signature']).toMatch(/^v1,[^ ]+$/);
    const created = await api.get('/v1/webhooks/secret');
    expect(created.body.data).toMatchObject({ set: true, shown: false });

    // The service's own unseen secret has no overlap: nobody could verify with it.
    const rotated = await api.post('/v1/webhooks/secret');
    expect(rotated.body.data).toMatchObject({ previous: null, dropped_previous: null });
    const old = rotated.body.data.secret as string;
    await editWithWebhook(keys['tenant-c'], receiver.url('/c/second'));
    // Signed when sent, after the task ends: rotate only once it has arrived.
    const [second] = await receiver.received('/c/second', 1);
    const renewed = await api.post('/v1/webhooks/secret');
    expect(renewed.body.data.secret).not.toBe(old);
    // The replaced secret signs on beside the new one for the overlap (a day by default): both verify.
    expect(renewed.body.data.previous.prefix).toBe(old.slice(0, 14));
    const until = Date.parse(renewed.body.data.previous.until);
    expect(Math.abs(until - Date.now() - 86_400_000)).toBeLessThan(300_000);
    expect(renewed.body.data.dropped_previous).toBeNull();
    await editWithWebhook(keys['tenant-c'], receiver.url('/c/third'));
    const [third] = await receiver.received('/c/third', 1);
    expect(third.headers['webhook-signature']).toMatch(/^v1,[^ ]+ v1,[^ ]+$/);
    expect([verifies(old, first), verifies(old, second), verifies(old, third)]).toEqual([false, true, true]);
    expect(verifies(renewed.body.data.secret, third)).toBe(true);
    expect((await api.get('/v1/webhooks/secret')).body.data).toMatchObject({
      prefix: renewed.body.data.secret.slice(0, 14),
      previous: { prefix: old.slice(0, 14) },
    });

    // Rotated again within the overlap: the answer says the oldest secret stopped; only the one just replaced signs on.
    const again = await api.post('/v1/webhooks/secret');
    expect(again.body.data.dropped_previous).toBe(old.slice(0, 14));
    expect(again.body.data.previous.prefix).toBe(renewed.body.data.secret.slice(0, 14));
    await editWithWebhook(keys['tenant-c'], receiver.url('/c/fourth'));
    const [fourth] = await receiver.received('/c/fourth', 1);
    expect([verifies(old, fourth), verifies(renewed.body.data.secret, fourth)]).toEqual([false, true]);
    expect(verifies(again.body.data.secret, fourth)).toBe(true);
  });

  it.each([307, 308])(
    'do not follow a %i redirect: the other origin gets nothing, the delivery fails',
    async (status) => {
      const elsewhere = await startWebhookReceiver();
      const redirecting = await startWebhookReceiver(() => ({
        status,
        headers: { location: elsewhere.url('/stolen') },
      }));
      try {
        const task = await editWithWebhook(app.adminKey, redirecting.url('/moved'));
        const tasks = app.app.get(DataSource).getRepository(EditTaskEntity);
        const deadline = Date.now() + 20_000;
        let state = 'pending';
        while (state === 'pending' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          state = (await tasks.findOneByOrFail({ id: task.id })).webhookState;
        }
        expect(state).toBe('failed');
        expect(redirecting.deliveries).toHaveLength(1);
        expect(elsewhere.deliveries).toEqual([]);
        const log = worker ? worker.output() : app.logs.join('\n');
        expect(log).toMatch(
          new RegExp(
            `task ${task.id}: webhook http://127\\.0\\.0\\.1:\\d+/moved not delivered: The webhook answered HTTP ${status};`,
          ),
        );
      } finally {
        await redirecting.stop();
        await elsewhere.stop();
      }
    },
  );
});
