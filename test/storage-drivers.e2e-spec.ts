import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { AddressPolicy, SafeFetcher, storageType } from '@app/storage';
import { AppConfig, loadConfig } from '@app/common';
import { LocalDriver } from '../libs/storage/src/drivers/local.driver';
import { S3Driver } from '../libs/storage/src/drivers/s3.driver';
import { SampleImages } from '../libs/storage/src/samples/sample-images';
import { AzureBlobDriver } from '../libs/storage/src/types/azure-blob/azure-blob.driver';
import { GcsServiceAccountDriver } from '../libs/storage/src/types/gcs/gcs-service-account.driver';
import { ConfinedFolderDriver } from '../libs/storage/src/types/local/confined-folder.driver';
import { WebFolderDriver } from '../libs/storage/src/types/web-folder/web-folder.driver';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type AzuriteServer } from './helpers/azurite';
import { FakeGcs, KEY } from './helpers/fake-gcs';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { describeDriverContract } from './helpers/storage-driver-contract';

/*
 * Every storage driver against the one contract (helpers/storage-driver-contract.ts): a folder on disk, a real
 * S3-compatible server (s3rver), Azure's own emulator (Azurite), the Cloud Storage JSON API's protocol-faithful fake (helpers/fake-gcs.ts) and a web
 * server on loopback. Each test works under a root of its own.
 */

let roots = 0;
const nextRoot = () => `run-${++roots}`;

/** A loopback store that answers every request as a throttled S3 does: 503 SlowDown. */
async function slowDownStore(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    const body = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>m</Message></Error>';
    response.writeHead(503, { 'content-type': 'application/xml' }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// A folder on disk: the temporary bucket's store.
let folder = '';
describeDriverContract({
  type: 'local files (the temporary bucket)',
  capabilities: { list: true, write: true },
  async setUp() {
    folder = mkdtempSync(join(tmpdir(), 'atelier-driver-'));
  },
  async tearDown() {
    rmSync(folder, { recursive: true, force: true });
  },
  async fresh() {
    const root = join(folder, nextRoot());
    mkdirSync(root);
    return {
      driver: new LocalDriver(root),
      async put(path, bytes) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), bytes);
      },
    };
  },
});

// local: a folder under an allowed root, confined (links that lead out: test/storage-local.e2e-spec.ts).
let allowed = '';
describeDriverContract({
  type: 'local',
  capabilities: storageType('local').capabilities,
  async setUp() {
    allowed = mkdtempSync(join(tmpdir(), 'atelier-driver-local-'));
  },
  async tearDown() {
    rmSync(allowed, { recursive: true, force: true });
  },
  async fresh() {
    const root = join(allowed, nextRoot());
    mkdirSync(root);
    return {
      driver: new ConfinedFolderDriver(root, [allowed]),
      async put(path, bytes) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), bytes);
      },
    };
  },
});

// s3: a real S3-compatible server.
const BUCKET = 'contract';
let s3: S3TestServer;
let slow: { server: Server; url: string };
describeDriverContract({
  type: 's3',
  capabilities: storageType('s3').capabilities,
  async setUp() {
    s3 = await startS3Server([BUCKET]);
    slow = await slowDownStore();
  },
  async tearDown() {
    await s3?.stop();
    slow?.server.close();
  },
  async fresh() {
    const prefix = nextRoot();
    const keys = { accessKey: s3.accessKey, secretKey: s3.secretKey };
    return {
      driver: new S3Driver({ kind: 's3', bucket: BUCKET, prefix, endpoint: s3.endpoint, region: 'us-east-1', ...keys }),
      async put(path, bytes) {
        await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${path}`, Body: bytes }));
      },
    };
  },
  async throttled() {
    const keys = { accessKey: 'AK', secretKey: 'SK' };
    return new S3Driver({ kind: 's3', bucket: BUCKET, prefix: '', endpoint: slow.url, region: 'us-east-1', ...keys });
  },
});

// azure_blob: Azurite, Microsoft's emulator, telemetry off.
let azurite: AzuriteServer;
describeDriverContract({
  type: 'azure_blob',
  capabilities: storageType('azure_blob').capabilities,
  async setUp() {
    azurite = await startAzurite(['contract']);
    slowAzure = await slowDownStore();
  },
  async tearDown() {
    await azurite?.stop();
    slowAzure?.server.close();
  },
  async fresh() {
    const prefix = nextRoot();
    const container = azurite.client.getContainerClient('contract');
    return {
      driver: new AzureBlobDriver({
        account: AZURITE_ACCOUNT,
        container: 'contract',
        prefix,
        endpoint: azurite.endpoint,
        accountKey: AZURITE_KEY,
        pageSize: 2,
      }),
      async put(path, bytes) {
        await container.getBlockBlobClient(`${prefix}/${path}`).uploadData(bytes);
      },
    };
  },
  async throttled() {
    return new AzureBlobDriver({
      account: AZURITE_ACCOUNT,
      container: 'contract',
      prefix: '',
      endpoint: `${slowAzure.url}/${AZURITE_ACCOUNT}`,
      accountKey: AZURITE_KEY,
      maxRetries: 0,
    });
  },
});
let slowAzure: { server: Server; url: string };

// gcs with a service-account key: the JSON API's fake.
const gcs = new FakeGcs();
describeDriverContract({
  type: 'gcs (service account)',
  capabilities: storageType('gcs').capabilities,
  async setUp() {
    await gcs.start();
    gcs.buckets.set('photos', new Map());
  },
  async tearDown() {
    await gcs.stop();
  },
  async fresh() {
    const prefix = nextRoot();
    return {
      driver: new GcsServiceAccountDriver({
        bucket: 'photos',
        prefix,
        serviceAccount: KEY,
        endpoint: gcs.url,
        pageSize: 2,
        maxRetries: 0,
      }),
      async put(path, bytes) {
        gcs.put(gcs.buckets.get('photos')!, `${prefix}/${path}`, bytes);
      },
    };
  },
  async throttled() {
    gcs.failNext = 429;
    return new GcsServiceAccountDriver({
      bucket: 'photos',
      prefix: '',
      serviceAccount: KEY,
      endpoint: gcs.url,
      maxRetries: 0,
    });
  },
});

// web_folder: a web server on loopback, read through the service's SSRF-safe fetcher.
let web: ImageServer;
let fetcher: SafeFetcher;
let dataDir = '';
describeDriverContract({
  type: 'web_folder',
  capabilities: storageType('web_folder').capabilities,
  async setUp() {
    web = await startImageServer();
    dataDir = mkdtempSync(join(tmpdir(), 'atelier-driver-web-'));
    const config: AppConfig = loadConfig({ FETCH_ALLOW_HOSTS: '127.0.0.1', DATA_DIR: dataDir });
    fetcher = new SafeFetcher(config, new AddressPolicy(config), new SampleImages(config));
  },
  async tearDown() {
    await web?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  },
  async fresh() {
    const root = nextRoot();
    return {
      driver: new WebFolderDriver(web.url(`/${root}/`), fetcher),
      async put(path, bytes) {
        web.put(`/${root}/${path}`, bytes, 'image/jpeg');
      },
    };
  },
  async throttled() {
    const root = nextRoot();
    web.put(`/${root}/shoes/red.jpg`, Buffer.from('x'), 'image/jpeg');
    web.fail(`/${root}/shoes/red.jpg`, 1, 429);
    return new WebFolderDriver(web.url(`/${root}/`), fetcher);
  },
});
