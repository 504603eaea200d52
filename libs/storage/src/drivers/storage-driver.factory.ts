import { Injectable } from '@nestjs/common';
import { AppConfig, ServiceException } from '@app/common';
import type { BucketParameters, StorageConnection, WebFolderParameters } from '../connections/storage-parameters';
import { AddressPolicy, bareHost } from '../fetch/address-policy';
import { SafeFetcher } from '../fetch/safe-fetcher';
import { GcsServiceAccountDriver } from './gcs-service-account.driver';
import type { ListingLimits } from './listing-limits';
import { normalisePrefix } from './object-paths';
import { S3Driver } from './s3.driver';
import type { StorageDriver } from './storage-driver';
import { tracedDriver } from './traced-storage.driver';
import { WebFolderDriver } from './web-folder.driver';

/** Google's S3-compatible XML API, used by `gcs` storages with HMAC keys. */
export const GCS_XML_ENDPOINT = 'https://storage.googleapis.com';

/** `host:port` of an http(s) URL, the same for every spelling of one endpoint (case, default port, root dot). */
function endpointKey(endpoint: string): string {
  const url = new URL(endpoint);
  return `${bareHost(url).toLowerCase()}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

/** The one place that turns a storage connection into its driver. */
@Injectable()
export class StorageDriverFactory {
  /** The service's own object store (the temporary bucket's endpoints): no tenant storage may name it. */
  private readonly internalEndpoints: ReadonlySet<string>;

  constructor(
    private readonly config: AppConfig,
    private readonly policy: AddressPolicy,
    private readonly fetcher: SafeFetcher,
  ) {
    const temporary = config.temporaryBucket;
    this.internalEndpoints = new Set(
      [temporary?.endpoint, temporary?.publicEndpoint].filter((url) => url !== undefined).map(endpointKey),
    );
  }

  private get listing(): ListingLimits {
    const { storageListMaxPages, storageListTimeoutMs, storageListPageMaxBytes } = this.config;
    return { maxPages: storageListMaxPages, timeoutMs: storageListTimeoutMs, pageMaxBytes: storageListPageMaxBytes };
  }

  /** The connection's driver; with tracing on, a span per call (traced-storage.driver.ts). */
  create(connection: StorageConnection): StorageDriver {
    return tracedDriver(this.build(connection), connection.type);
  }

  private build(connection: StorageConnection): StorageDriver {
    const endpoint = (connection.parameters as Partial<BucketParameters>).endpoint;
    // Even where FETCH_ALLOW_HOSTS opens its address, the store that holds every account's temporary results
    // is not a tenant's storage.
    if (typeof endpoint === 'string' && this.internalEndpoints.has(endpointKey(endpoint))) {
      throw ServiceException.validation({
        'parameters.endpoint': ["this endpoint is the service's own internal store; connect a store of your own"],
      });
    }
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
        listing: this.listing,
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
      listing: this.listing,
    });
  }
}
