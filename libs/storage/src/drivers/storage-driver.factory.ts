import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/common';
import type { BucketParameters, StorageConnection, WebFolderParameters } from '../connections/storage-parameters';
import { AddressPolicy } from '../fetch/address-policy';
import { SafeFetcher } from '../fetch/safe-fetcher';
import { GcsServiceAccountDriver } from './gcs-service-account.driver';
import { normalisePrefix } from './object-paths';
import { S3Driver } from './s3.driver';
import type { StorageDriver } from './storage-driver';
import { WebFolderDriver } from './web-folder.driver';

/** Google's S3-compatible XML API, used by `gcs` storages with HMAC keys. */
export const GCS_XML_ENDPOINT = 'https://storage.googleapis.com';

/** The one place that turns a storage connection into its driver. */
@Injectable()
export class StorageDriverFactory {
  constructor(
    private readonly config: AppConfig,
    private readonly policy: AddressPolicy,
    private readonly fetcher: SafeFetcher,
  ) {}

  create(connection: StorageConnection): StorageDriver {
    if (connection.type === 'web_folder') {
      return new WebFolderDriver((connection.parameters as WebFolderParameters).base_url, this.fetcher);
    }
    const parameters = connection.parameters as BucketParameters;
    const prefix = normalisePrefix(parameters.path);
    const serviceAccount = connection.secret?.service_account;
    if (connection.type === 'gcs' && serviceAccount) {
      return new GcsServiceAccountDriver({
        bucket: parameters.bucket,
        prefix,
        serviceAccount,
        // The API refuses an endpoint with a service-account key; should one reach here, it is still judged.
        endpoint: parameters.endpoint,
        guard: parameters.endpoint ? this.policy : undefined,
      });
    }
    const gcs = connection.type === 'gcs';
    return new S3Driver({
      kind: connection.type,
      bucket: parameters.bucket,
      prefix,
      endpoint: parameters.endpoint ?? (gcs ? GCS_XML_ENDPOINT : undefined),
      region: parameters.region ?? (gcs ? 'auto' : 'us-east-1'),
      accessKey: parameters.credentials.access_key,
      secretKey: connection.secret?.secret_access_key,
      // Endpoints come from users: every connection to them passes the same address policy as downloads.
      guard: parameters.endpoint ? this.policy : undefined,
      connectTimeoutMs: this.config.fetchConnectTimeoutMs,
      requestTimeoutMs: this.config.fetchTimeoutMs,
    });
  }
}
