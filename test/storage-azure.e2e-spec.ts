import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { ContainerSASPermissions } from '@azure/storage-blob';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureBlobDriver } from '../libs/storage/src/types/azure-blob/azure-blob.driver';
import { quadrantsImage } from './fixtures/images';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type AzuriteServer } from './helpers/azurite';
import { installConnectGuard } from './helpers/connect-guard';
import { editImage } from './helpers/edit-client';
import { client } from './helpers/http';
import type { RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * The `azure_blob` storage type over HTTP (libs/storage/src/types/azure-blob), against Azurite (Microsoft's
 * emulator, in memory, telemetry off): connected with the account key or a SAS token, never shown; an edit's input
 * and output; a batch's folder input and output, in the mode the suite runs in. Blobs are seeded and read back with
 * the test's own client.
 */

let azurite: AzuriteServer;
let app: TestApp;
let worker: RunningProcess | undefined;

const api = () => client(app.url, app.adminKey);

function azure(name: string, container: string, credentials: Record<string, string>, extra = {}) {
  return {
    name,
    type: 'azure_blob',
    parameters: { account: AZURITE_ACCOUNT, container, endpoint: azurite.endpoint, credentials, ...extra },
  };
}

async function blob(container: string, name: string): Promise<Buffer> {
  return azurite.client.getContainerClient(container).getBlobClient(name).downloadToBuffer();
}

async function names(container: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const item of azurite.client.getContainerClient(container).listBlobsFlat({ prefix })) {
    found.push(item.name);
  }
  return found.sort();
}

let sas = '';

beforeAll(async () => {
  azurite = await startAzurite(['photos', 'results']);
  const photos = azurite.client.getContainerClient('photos');
  const put = (name: string, body: Buffer) => photos.getBlockBlobClient(name).uploadData(body);
  await put('shoes/red.jpg', await quadrantsImage({ format: 'jpeg', width: 200, height: 100 }));
  await put('shoes/blue.png', await quadrantsImage({ format: 'png', width: 100, height: 200 }));
  await put('shoes/winter/boot.webp', await quadrantsImage({ format: 'webp', width: 80, height: 40 }));
  const url = await azurite.client.getContainerClient('results').generateSasUrl({
    permissions: ContainerSASPermissions.parse('racwdl'),
    expiresOn: new Date(Date.now() + 3_600_000),
  });
  sas = new URL(url).search.slice(1);
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  worker = await startWorkerFor(app);
  for (const body of [
    azure('photos', 'photos', { account_key: AZURITE_KEY }),
    azure('results', 'results', { sas_token: sas }),
  ]) {
    const res = await api().post('/v1/storage/storages', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await azurite?.stop();
});

describe('the azure_blob storage type', () => {
  it('shows which credential a storage holds, never the key or the token', async () => {
    const listed = await api().get('/v1/storage/storages');
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(AZURITE_KEY);
    expect(text).not.toContain(new URLSearchParams(sas).get('sig')!);
    const shown = (name: string) => listed.body.data.find((storage: { name: string }) => storage.name === name);
    expect(shown('photos')).toMatchObject({
      type: 'azure_blob',
      parameters: { account: AZURITE_ACCOUNT, container: 'photos', credentials: { kind: 'account_key' } },
    });
    expect(shown('results').parameters.credentials).toEqual({ kind: 'sas_token' });
    for (const log of app.logs) expect(log).not.toContain(AZURITE_KEY);
  });

  it('refuses a wrong key, a missing container, both credentials, and a private endpoint before connecting', async () => {
    const wrongKey = Buffer.alloc(64, 1).toString('base64');
    const refused = await api().post('/v1/storage/storages', azure('wrong', 'photos', { account_key: wrongKey }));
    expect(refused.status).toBe(422);
    expect(refused.body.error_type).toBe('storage');
    expect(JSON.stringify(refused.body)).not.toContain(wrongKey);
    const missing = await api().post('/v1/storage/storages', azure('none', 'nothing', { account_key: AZURITE_KEY }));
    expect(missing.status).toBe(422);
    expect(missing.body.error_message).toContain('Container "nothing" does not exist');
    const both = await api().post(
      '/v1/storage/storages',
      azure('both', 'photos', { account_key: AZURITE_KEY, sas_token: sas }),
    );
    expect(both.body.error_details['parameters.credentials']).toEqual(['give either account_key or sas_token']);
    const guard = installConnectGuard(['127.0.0.1']);
    try {
      const away = await api().post('/v1/storage/storages', {
        ...azure('away', 'photos', { account_key: AZURITE_KEY }),
        parameters: {
          account: AZURITE_ACCOUNT,
          container: 'photos',
          endpoint: 'http://10.20.30.40:10000/devstoreaccount1',
          credentials: { account_key: AZURITE_KEY },
        },
      });
      expect(away.status).toBe(422);
      expect(guard.refused).toEqual([]);
    } finally {
      guard.restore();
    }
  });

  it('switches a storage from its account key to a SAS token by PATCH, the key dropped', async () => {
    const created = await api().post(
      '/v1/storage/storages',
      azure('switching', 'results', { account_key: AZURITE_KEY }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.data.id;
    const patched = await api().patch(`/v1/storage/storages/${id}`, {
      parameters: { credentials: { sas_token: sas } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.parameters.credentials).toEqual({ kind: 'sas_token' });
    // the token alone reaches the container: a second PATCH of another member keeps it, and the key stays gone
    const renamed = await api().patch(`/v1/storage/storages/${id}`, { parameters: { path: 'renamed' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.data.parameters).toMatchObject({ path: 'renamed', credentials: { kind: 'sas_token' } });
    expect((await api().delete(`/v1/storage/storages/${id}`)).status).toBe(200);
  });

  it('is an edit’s input and output', async () => {
    const res = await editImage(app, {
      input: 'storage://photos/shoes/red.jpg',
      operations: { resizing: { width: 100, height: 50 } },
      output: { format: 'png', destination: 'storage://results/edits/red.png' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.output).toMatchObject({ object_key: 'edits/red.png', object_bucket: 'results' });
    const meta = await sharp(await blob('results', 'edits/red.png')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 100, 50]);
  });

  it('is a batch’s folder input and output, recursive', async () => {
    const created = await api().post('/v1/image/edit/batch', {
      input: { source: 'storage://photos/shoes/', recursive: true },
      operations: { resizing: { width: 40, height: 40, fit: 'bounds' } },
      output: 'storage://results/batch/',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${created.body.data.id}`);
    expect(task.status, JSON.stringify(task.errors)).toBe('DONE');
    expect(task.progress).toMatchObject({ total: 3, done: 3, failed: 0 });
    expect(await names('results', 'batch/')).toEqual(['batch/blue.jpg', 'batch/red.jpg', 'batch/winter/boot.jpg']);
  });

  it('sends every request through the address policy’s lookup (connections pinned to judged addresses)', async () => {
    let lookups = 0;
    const lookup: LookupFunction = (hostname, options, callback) => {
      lookups++;
      dnsLookup(hostname, options, callback);
    };
    const driver = new AzureBlobDriver({
      account: AZURITE_ACCOUNT,
      container: 'photos',
      prefix: '',
      endpoint: azurite.endpoint.replace('127.0.0.1', 'localhost'),
      accountKey: AZURITE_KEY,
      guard: { resolve: () => Promise.resolve(), lookup },
    });
    try {
      expect(await driver.head('shoes/red.jpg')).toMatchObject({ size: expect.any(Number) });
      expect(lookups).toBeGreaterThan(0);
    } finally {
      driver.close();
    }
  });
});
