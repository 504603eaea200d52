import { describe, expect, it } from 'vitest';
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
