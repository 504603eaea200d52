import { Agent, createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ServiceException } from '@app/common';
import type { StorageConnection } from '../connections/storage-parameters';
import { AddressPolicy } from '../fetch/address-policy';
import type { SafeFetcher } from '../fetch/safe-fetcher';
import { StorageDriverFactory } from './storage-driver.factory';

/** docker-compose's shape: the temporary bucket on an internal MinIO that tenants' storages must not name. */
const config = loadConfig({
  DATA_DIR: '/tmp/atelier-factory-spec',
  TEMP_BUCKET: 's3://atelier/temporary',
  TEMP_BUCKET_ENDPOINT: 'http://minio:9000',
  TEMP_BUCKET_PUBLIC_ENDPOINT: 'https://files.example.com',
  TEMP_BUCKET_ACCESS_KEY: 'temporary-user',
  TEMP_BUCKET_SECRET_KEY: 'temporary-secret',
  // even when the operator opened the store's name for downloads and storages
  FETCH_ALLOW_HOSTS: 'minio',
});
const factory = new StorageDriverFactory(config, new AddressPolicy(config), {} as SafeFetcher);

function s3(endpoint: string): StorageConnection {
  return {
    type: 's3',
    parameters: { bucket: 'atelier', endpoint, credentials: { access_key: 'tenant' } },
    secret: { secret_access_key: 'tenant-secret' },
  } as StorageConnection;
}

describe('StorageDriverFactory', () => {
  it.each([
    'http://minio:9000',
    'http://MINIO:9000/',
    'http://minio.:9000/atelier',
    'https://files.example.com',
    'https://files.example.com:443/',
  ])("refuses a tenant storage at the temporary bucket's endpoint %s", (endpoint) => {
    const error = (() => {
      try {
        factory.create(s3(endpoint));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ServiceException);
    expect(error).toMatchObject({
      status: 422,
      details: { 'parameters.endpoint': [expect.stringMatching(/own internal store/)] },
    });
  });

  it.each(['http://minio:9001', 'http://other-minio:9000', 'https://files.example.com:8443'])(
    'builds a driver for another endpoint (%s)',
    (endpoint) => {
      const driver = factory.create(s3(endpoint));
      expect(driver).toBeDefined();
      driver.close();
    },
  );
});

/** A store that refuses every request (403), counting the connections it is given. */
let store: Server;
let connections = 0;
let port = 0;
beforeAll(async () => {
  store = createServer((_req, res) =>
    res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>'),
  );
  store.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
  port = (store.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => store.close(() => resolve())));

/** A factory whose temporary bucket is at `endpoint`, loopback opened for storages (as an operator might). */
function factoryWith(endpoint: string): StorageDriverFactory {
  const local = loadConfig({
    DATA_DIR: '/tmp/atelier-factory-spec',
    TEMP_BUCKET: 's3://atelier/temporary',
    TEMP_BUCKET_ENDPOINT: endpoint,
    TEMP_BUCKET_ACCESS_KEY: 'temporary-user',
    TEMP_BUCKET_SECRET_KEY: 'temporary-secret',
    FETCH_ALLOW_HOSTS: '127.0.0.0/8,::1',
  });
  return new StorageDriverFactory(local, new AddressPolicy(local), {} as SafeFetcher);
}

/** What a first request to a tenant storage at `endpoint` answers. */
async function firstRequest(factory: StorageDriverFactory, endpoint: string): Promise<unknown> {
  const driver = factory.create(s3(endpoint));
  try {
    await driver.list('')[Symbol.asyncIterator]().next();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    driver.close();
  }
}

describe("StorageDriverFactory: the temporary bucket's addresses, not only its spellings", () => {
  it.each([
    ['http://127.0.0.1:PORT', 'http://localhost:PORT'],
    ['http://127.0.0.1:PORT', 'http://[::ffff:127.0.0.1]:PORT'],
    ['http://localhost:PORT', 'http://127.0.0.1:PORT'],
    ['http://localhost:PORT', 'http://[::ffff:7f00:1]:PORT/atelier'],
  ])('the bucket at %s: a tenant storage at %s is refused before any connection', async (temporary, tenant) => {
    const at = (url: string) => url.replace('PORT', String(port));
    const before = connections;
    const error = await firstRequest(factoryWith(at(temporary)), at(tenant));
    expect(error).toMatchObject({
      status: 422,
      details: { 'parameters.endpoint': [expect.stringMatching(/own internal store/)] },
    });
    expect(connections).toBe(before);
  });

  it('judges every connection to a named endpoint by the addresses it is given (a name that moves onto the store)', async () => {
    const guard = factoryWith(`http://127.0.0.1:${port}`).guardOf(new URL(`http://localhost:${port}`));
    const before = connections;
    const agent = new Agent({ lookup: guard.lookup });
    const error = await new Promise<unknown>((resolve) => {
      get({ host: 'localhost', port, path: '/', agent }, (res) => resolve(res.statusCode)).on('error', resolve);
    });
    agent.destroy();
    expect(error).toMatchObject({
      status: 422,
      details: { 'parameters.endpoint': [expect.stringMatching(/own internal store/)] },
    });
    expect(connections).toBe(before);
  });

  it('another port of the same address is another store: connected to (and refused by it here)', async () => {
    const factory = factoryWith(`http://127.0.0.1:${port + 1}`);
    const before = connections;
    const error = await firstRequest(factory, `http://localhost:${port}`);
    expect(error).toMatchObject({ codeName: 'STORAGE_UNREACHABLE' });
    expect(connections).toBeGreaterThan(before);
  });
});
