import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageEntity } from '@app/database';
import { quadrantsImage } from './fixtures/images';
import { editImage } from './helpers/edit-client';
import { client, type ApiResponse } from './helpers/http';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/** The storage secret never leaves the service: not in responses, not in logs, not in clear in the database. */
describe('storage secrets', () => {
  let s3: S3TestServer;
  let app: TestApp;
  const responses: ApiResponse[] = [];

  beforeAll(async () => {
    s3 = await startS3Server(['vault']);
    // The most verbose log level: whatever the service logs, it must not log the secret.
    // LOOKUP_CACHE_MS 0: a row changed behind the service's back (as below) is read by the very next request.
    app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'trace', LOOKUP_CACHE_MS: '0' });
    const api = client(app.url, app.adminKey);
    const parameters = {
      bucket: 'vault',
      endpoint: s3.endpoint,
      credentials: { access_key: s3.accessKey, secret_access_key: s3.secretKey },
    };
    const created = await api.post('/v1/storage/storages', { name: 'vault', type: 's3', parameters });
    expect(created.status).toBe(200);
    const id = created.body.data.id as number;
    responses.push(
      created,
      await api.get('/v1/storage/storages'),
      await api.get(`/v1/storage/storages/${id}`),
      await api.patch(`/v1/storage/storages/${id}`, { parameters: { path: 'inner' } }),
      await api.patch(`/v1/storage/storages/${id}`, { parameters: { credentials: parameters.credentials } }),
      // Failures too: a refused bucket, a validation error with the secret in the body, a duplicate.
      await api.post('/v1/storage/storages', { name: 'x', type: 's3', parameters: { ...parameters, bucket: 'nope' } }),
      await api.post('/v1/storage/storages', { name: 'y', type: 's3', parameters: { ...parameters, extra: 1 } }),
      await api.post('/v1/storage/storages', { name: 'vault', type: 's3', parameters }),
      await api.patch(`/v1/storage/storages/${id}`, { parameters: { bucket: 'missing-bucket' } }),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 422, 422, 409, 422]);
  });

  afterAll(async () => {
    await app?.close();
    await s3?.stop();
  });

  it('is in no response', () => {
    for (const response of responses) expect(response.text).not.toContain(s3.secretKey);
    // The access key is shown, as the contract says.
    expect(responses[0].body.data.parameters.credentials).toEqual({ access_key: s3.accessKey });
  });

  it('is in no log line', () => {
    expect(app.logs.length).toBeGreaterThan(9);
    expect(app.logs.filter((line) => line.includes(s3.secretKey))).toEqual([]);
  });

  it('is stored only encrypted', async () => {
    const rows: { secret: string; parameters: string }[] = await app.app
      .get(DataSource)
      .query('SELECT secret, parameters FROM storages');
    expect(rows).toHaveLength(1);
    expect(rows[0].secret).toMatch(/^v2\.[0-9a-f]{8}\./);
    expect(rows[0].secret).not.toContain(s3.secretKey);
    expect(rows[0].parameters).not.toContain(s3.secretKey);
    expect(JSON.parse(rows[0].parameters)).toEqual({
      bucket: 'vault',
      path: 'inner',
      endpoint: s3.endpoint,
      credentials: { access_key: s3.accessKey },
    });
    // Embedded mode: not in the SQLite files' bytes either (database, WAL, journal), in any common encoding.
    if (app.config.databaseKind === 'sqlite') {
      const needles = [
        s3.secretKey,
        Buffer.from(s3.secretKey).toString('base64'),
        Buffer.from(s3.secretKey).toString('hex'),
      ];
      for (const file of readdirSync(app.config.dataDir).filter((name) => name.startsWith('atelier.sqlite'))) {
        const bytes = readFileSync(join(app.config.dataDir, file)).toString('latin1');
        for (const needle of needles) expect(bytes.includes(needle), `${file} holds the secret`).toBe(false);
      }
    }
  });

  // Last: it adds a storage. Someone with write access to the database copies the secret of one storage onto
  // another of the same account (for example to point a victim's storage name at their own bucket's credentials).
  it('does not decrypt when copied onto another storage row of the same account', async () => {
    const api = client(app.url, app.adminKey);
    await s3.client.send(
      new PutObjectCommand({ Bucket: 'vault', Key: 'photo.jpg', Body: await quadrantsImage({ format: 'jpeg' }) }),
    );
    const parameters = {
      bucket: 'vault',
      endpoint: s3.endpoint,
      credentials: { access_key: s3.accessKey, secret_access_key: s3.secretKey },
    };
    const second = await api.post('/v1/storage/storages', { name: 'second', type: 's3', parameters });
    expect(second.status, second.text).toBe(200);
    const edit = { input: 'storage://second/photo.jpg', operations: { resizing: { width: 8 } } };
    expect((await editImage(app, edit)).status).toBe(200);

    const storages = app.app.get(DataSource).getRepository(StorageEntity);
    const first = await storages.findOneByOrFail({ name: 'vault' });
    await storages.update({ id: second.body.data.id }, { secret: first.secret });
    const res = await editImage(app, edit);
    expect(res.status, res.text).toBe(500);
    expect(res.body.error_code).toBe('9500');
    expect(res.text).not.toContain(s3.secretKey);
  });
});
