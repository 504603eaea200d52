import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageEntity, WebhookSecretEntity } from '@app/database';
import { WebhookSecrets } from '@app/editing';
import { v1Envelope } from './fixtures/v1-envelope';
import { createScratchDatabase, testPostgresUrl, type ScratchDatabase } from './helpers/databases';
import { client } from './helpers/http';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/** Rotation of the credential key, as docs/configuration.md describes it, over restarts on one database. */
describe('storage credential key rotation', () => {
  let s3: S3TestServer;
  let dataDir: string;
  let database: ScratchDatabase | undefined;
  const oldKey = randomBytes(32).toString('hex');
  const newKey = randomBytes(32).toString('hex');

  beforeAll(async () => {
    s3 = await startS3Server(['rotating']);
    dataDir = mkdtempSync(join(tmpdir(), 'atelier-rotation-'));
    if (testPostgresUrl) database = await createScratchDatabase();
  });
  afterAll(async () => {
    await s3?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** One run of the service on the shared DATA_DIR and database. */
  async function run<T>(env: Record<string, string>, body: (app: TestApp) => Promise<T>): Promise<T> {
    const app = await startTestApp({
      DATA_DIR: dataDir,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      ...(database ? { DATABASE_URL: database.url } : {}),
      ...env,
    });
    try {
      return await body(app);
    } finally {
      await app.close();
    }
  }

  const secretColumn = async (app: TestApp) =>
    ((await app.app.get(DataSource).query('SELECT secret FROM storages')) as { secret: string }[])[0].secret;

  it('re-encrypts with the new key at start, keeps the storage working, and survives a lost key', async () => {
    const credentials = { access_key: s3.accessKey, secret_access_key: s3.secretKey };
    const parameters = { bucket: 'rotating', endpoint: s3.endpoint, credentials };
    const first = await run({ STORAGE_ENCRYPTION_KEY: oldKey }, async (app) => {
      const res = await client(app.url, app.adminKey).post('/v1/storage/storages', {
        name: 'rotating',
        type: 's3',
        parameters,
      });
      expect(res.status).toBe(200);
      return { id: res.body.data.id as number, envelope: await secretColumn(app) };
    });

    await run({ STORAGE_ENCRYPTION_KEY: newKey, STORAGE_ENCRYPTION_PREVIOUS_KEYS: oldKey }, async (app) => {
      const envelope = await secretColumn(app);
      expect(envelope.split('.')[1]).not.toBe(first.envelope.split('.')[1]);
      expect(app.logs.some((line) => line.includes('Re-encrypted the credentials of 1 storages'))).toBe(true);
      // The decrypted secret still works: a merge-PATCH re-checks the bucket with it.
      const res = await client(app.url, app.adminKey).patch(`/v1/storage/storages/${first.id}`, {
        parameters: { path: 'in' },
      });
      expect(res.status).toBe(200);
    });

    // The new key alone: nothing left that needs the old one.
    await run({ STORAGE_ENCRYPTION_KEY: newKey }, async (app) => {
      const res = await client(app.url, app.adminKey).patch(`/v1/storage/storages/${first.id}`, {
        parameters: { path: null },
      });
      expect(res.status).toBe(200);
    });

    // A key that never wrote it: the service still starts, says which storage is affected, and new credentials
    // repair it.
    await run({ STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('hex') }, async (app) => {
      expect(app.logs.some((line) => line.includes(`Storage ${first.id}: cannot re-encrypt its credentials`))).toBe(
        true,
      );
      const api = client(app.url, app.adminKey);
      const withoutSecret = await api.patch(`/v1/storage/storages/${first.id}`, { parameters: { path: 'x' } });
      expect(withoutSecret.status).toBe(422);
      expect(withoutSecret.body.error_details).toHaveProperty(['parameters.credentials.secret_access_key']);
      const repaired = await api.patch(`/v1/storage/storages/${first.id}`, { parameters: { credentials } });
      expect(repaired.status).toBe(200);
    });
  });

  it('upgrades a storage secret written as envelope v1 (bound to the account only) to v2 at start', async () => {
    const key = randomBytes(32);
    const env = { STORAGE_ENCRYPTION_KEY: key.toString('hex') };
    const credentials = { access_key: s3.accessKey, secret_access_key: s3.secretKey };
    const parameters = { bucket: 'rotating', endpoint: s3.endpoint, credentials };
    const id = await run(env, async (app) => {
      const res = await client(app.url, app.adminKey).post('/v1/storage/storages', {
        name: 'old',
        type: 's3',
        parameters,
      });
      expect(res.status).toBe(200);
      // What an earlier version saved: the same secret, bound to the account only.
      const storages = app.app.get(DataSource).getRepository(StorageEntity);
      const row = await storages.findOneByOrFail({ id: res.body.data.id });
      const v1 = v1Envelope(key, { secret_access_key: s3.secretKey }, `account:${row.accountId}`);
      await storages.update({ id: row.id }, { secret: v1 });
      return row.id;
    });
    await run(env, async (app) => {
      expect(app.logs.some((line) => line.includes('Re-encrypted the credentials of 1 storages'))).toBe(true);
      const row = await app.app.get(DataSource).getRepository(StorageEntity).findOneByOrFail({ id });
      expect(row.secret).toMatch(/^v2\./);
      const res = await client(app.url, app.adminKey).patch(`/v1/storage/storages/${id}`, {
        parameters: { path: 'in' },
      });
      expect(res.status, res.text).toBe(200);
    });
  });

  it('re-encrypts webhook secrets with the new key too, which still sign after the old key is gone', async () => {
    const key = async (app: TestApp) => {
      const { accountId } = await app.app.get(DataSource).getRepository(WebhookSecretEntity).findOneByOrFail({});
      const [current, ...others] = await app.app.get(WebhookSecrets).signingKeys(accountId);
      expect(others).toEqual([]);
      return current;
    };
    const secret = await run({ STORAGE_ENCRYPTION_KEY: oldKey }, async (app) => {
      const res = await client(app.url, app.adminKey).post('/v1/webhooks/secret');
      expect(res.status).toBe(200);
      return res.body.data.secret as string;
    });
    await run({ STORAGE_ENCRYPTION_KEY: newKey, STORAGE_ENCRYPTION_PREVIOUS_KEYS: oldKey }, async (app) => {
      expect(app.logs.some((line) => line.includes('Re-encrypted 1 webhook secrets'))).toBe(true);
    });
    await run({ STORAGE_ENCRYPTION_KEY: newKey }, async (app) => {
      expect((await key(app)).equals(Buffer.from(secret.slice('whsec_'.length), 'base64'))).toBe(true);
    });
  });
});
