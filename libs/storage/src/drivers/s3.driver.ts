import { pipeline, Readable, Transform } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ServiceException } from '@app/common';
import { describeUrl } from '../fetch/describe-url';
import { judgedOnce, pinnedAgents, type EndpointGuard } from './endpoint-guard';
import { answerFailure, noAnswer } from './store-failures';
import {
  cappedBody,
  DEFAULT_LISTING_LIMITS,
  ListingBudget,
  listingRefused,
  type ListingLimits,
} from './listing-limits';
import { folderKey, joinKey, relativePath } from './object-paths';
import type {
  StorageDriver,
  StorageListOptions,
  StorageObjectInfo,
  StorageReadResult,
  StorageWriteOptions,
  StorageWriteResult,
} from './storage-driver';

export interface S3DriverOptions {
  /** `s3`, or `gcs` for Google Cloud Storage over its S3-compatible XML API with HMAC keys. */
  kind: 's3' | 'gcs';
  bucket: string;
  /** Root prefix inside the bucket, without leading or trailing `/` ('' for the bucket root). */
  prefix: string;
  /** S3-compatible endpoint (MinIO, GCS, ...); undefined means AWS. */
  endpoint?: string;
  region: string;
  accessKey?: string;
  secretKey?: string;
  /** Set for endpoints a user gave: connections then go only to addresses the policy allows. */
  guard?: EndpointGuard;
  /** Longest time to open a connection, in milliseconds. */
  connectTimeoutMs?: number;
  /** Longest time a request may wait for the store's answer, in milliseconds. */
  requestTimeoutMs?: number;
  /**
   * Without keys, use the AWS SDK's default credential chain (environment, instance role). Only for the operator's
   * own temporary bucket; a user's storage without keys is refused instead.
   */
  defaultCredentials?: boolean;
  /** Objects per listing page (S3's maximum and default is 1,000). */
  pageSize?: number;
  /** Bounds of one listing (pages, time, bytes per page); DEFAULT_LISTING_LIMITS when absent. */
  listing?: ListingLimits;
  /** Endpoint written into presigned URLs, when clients reach the store by another address than the service. */
  presignEndpoint?: string;
}

const NOT_FOUND = new Set(['NoSuchKey', 'NotFound']);
const REFUSED = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'Forbidden',
  'AllAccessDisabled',
]);

/**
 * The `s3` driver, for AWS S3 and S3-compatible stores (path-style addressing when an endpoint is given), and
 * for `gcs` storages with HMAC keys. Writes go through a (multipart when large) upload that only creates the
 * object when it completes, so a failed body leaves nothing behind.
 */
export class S3Driver implements StorageDriver {
  private readonly client: S3Client;
  private readonly endpointChecked: Promise<unknown>;
  private readonly scheme: string;
  private readonly clientConfig: S3ClientConfig;
  private signer?: S3Client;

  constructor(private readonly options: S3DriverOptions) {
    const { endpoint, guard } = options;
    this.scheme = options.kind === 'gcs' ? 'gs' : 's3';
    const agents = pinnedAgents(guard);
    const config: S3ClientConfig = {
      region: options.region,
      endpoint,
      forcePathStyle: endpoint !== undefined,
      credentials:
        options.accessKey && options.secretKey
          ? { accessKeyId: options.accessKey, secretAccessKey: options.secretKey }
          : options.defaultCredentials
            ? undefined
            : // A user's storage never falls back to the service's own AWS credentials (environment, instance role).
              () => Promise.reject(new ServiceException('STORAGE_UNREACHABLE', 'The storage has no credentials.')),
      // S3-compatible stores (GCS, older MinIO, s3rver) do not all accept the SDK's default checksum trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: {
        connectionTimeout: options.connectTimeoutMs ?? 5_000,
        // Without it a store that accepts and never answers would hold a request (and its job) for ever.
        requestTimeout: options.requestTimeoutMs ?? 30_000,
        throwOnRequestTimeout: true,
        httpAgent: agents.http,
        httpsAgent: agents.https,
      },
    };
    this.clientConfig = config;
    this.client = new S3Client(config);
    this.endpointChecked = judgedOnce(guard, endpoint);
  }

  private key(path: string): string {
    return joinKey(this.options.prefix, path);
  }

  private async send<T>(run: () => Promise<T>, path?: string): Promise<T> {
    try {
      await this.endpointChecked;
      return await run();
    } catch (error) {
      throw this.translate(error, path);
    }
  }

  async read(path: string): Promise<StorageReadResult> {
    const output = await this.send(
      () => this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(path) })),
      path,
    );
    return {
      stream: output.Body as Readable,
      size: output.ContentLength,
      contentType: output.ContentType,
    };
  }

  async write(path: string, body: Readable | Buffer, options: StorageWriteOptions = {}): Promise<StorageWriteResult> {
    const key = this.key(path);
    let size = 0;
    let bodyError: Error | undefined;
    let source: Readable | Buffer = body;
    if (!Buffer.isBuffer(body)) {
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      // A failing body fails the counter, which fails the upload; the body's own error is what the caller sees.
      pipeline(body, counter, (error) => (bodyError = error ?? undefined));
      source = counter;
    }
    try {
      await this.send(async () => {
        // leavePartsOnError: false aborts a started multipart upload, so no part is left to bill or to see.
        const upload = new Upload({
          client: this.client,
          params: { Bucket: this.options.bucket, Key: key, Body: source, ContentType: options.contentType },
          queueSize: 2,
          leavePartsOnError: false,
        });
        await upload.done();
      }, path);
    } catch (error) {
      // The body may not have been read at all (the endpoint was refused first): release its source.
      if (source instanceof Readable) source.destroy();
      if (!Buffer.isBuffer(body)) body.destroy();
      throw bodyError ?? error;
    }
    return {
      path,
      key,
      bucket: this.options.bucket,
      uri: `${this.scheme}://${this.options.bucket}/${key}`,
      size: Buffer.isBuffer(body) ? body.length : size,
    };
  }

  /**
   * Lists page by page within the listing's limits (listing-limits.ts): pages, time, bytes per page, and no
   * continuation token twice; a store past one gets STORAGE_LISTING_REFUSED, never retried.
   */
  async *list(folder: string, options: StorageListOptions = {}): AsyncIterable<StorageObjectInfo> {
    const Prefix = folderKey(this.options.prefix, folder);
    const limits = this.options.listing ?? DEFAULT_LISTING_LIMITS;
    const budget = new ListingBudget(limits);
    let token: string | undefined;
    do {
      budget.next(token);
      const command = new ListObjectsV2Command({
        Bucket: this.options.bucket,
        Prefix,
        Delimiter: options.recursive ? undefined : '/',
        ContinuationToken: token,
        MaxKeys: this.options.pageSize ?? 1000,
      });
      let over = false;
      capAnswer(command, limits.pageMaxBytes, () => (over = true));
      const tooLarge = () =>
        listingRefused(`a page was larger than ${limits.pageMaxBytes} bytes (STORAGE_LIST_PAGE_MAX_BYTES)`);
      // The cut page fails to parse (or parses short): the reason given is the cut, not the parser's.
      const page = await this.send(() =>
        this.client.send(command).then(
          (output) => (over ? Promise.reject(tooLarge()) : output),
          (error: unknown) => Promise.reject(over ? tooLarge() : error),
        ),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key || object.Key.endsWith('/')) continue;
        yield {
          path: relativePath(this.options.prefix, object.Key),
          size: Number(object.Size ?? 0),
          lastModified: object.LastModified,
        };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async head(path: string): Promise<StorageObjectInfo | null> {
    try {
      const output = await this.send(
        () => this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(path) })),
        path,
      );
      return {
        path,
        size: Number(output.ContentLength ?? 0),
        lastModified: output.LastModified,
        contentType: output.ContentType,
      };
    } catch (error) {
      if (error instanceof ServiceException && error.codeName === 'STORAGE_OBJECT_NOT_FOUND') return null;
      throw error;
    }
  }

  async delete(path: string): Promise<void> {
    await this.send(
      () => this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.key(path) })),
      path,
    );
  }

  async check(timeoutMs = 10_000): Promise<void> {
    const command = new ListObjectsV2Command({
      Bucket: this.options.bucket,
      Prefix: folderKey(this.options.prefix, ''),
      MaxKeys: 1,
    });
    // An answer of one key is small: one past the page limit is refused unread, whatever the store sends.
    let over = false;
    capAnswer(command, (this.options.listing ?? DEFAULT_LISTING_LIMITS).pageMaxBytes, () => (over = true));
    const tooLarge = () => new ServiceException('STORAGE_UNREACHABLE', 'The storage answered a listing too large.');
    await this.send(() =>
      this.client.send(command, { abortSignal: AbortSignal.timeout(timeoutMs) }).then(
        (output) => (over ? Promise.reject(tooLarge()) : output),
        (error: unknown) => Promise.reject(over ? tooLarge() : error),
      ),
    );
  }

  /** A URL that lets anyone holding it GET the object until it expires. Signing needs no request. */
  async presignedUrl(path: string, expiresInSeconds: number): Promise<string> {
    const { presignEndpoint } = this.options;
    this.signer ??= presignEndpoint
      ? new S3Client({ ...this.clientConfig, endpoint: presignEndpoint, forcePathStyle: true })
      : this.client;
    const command = new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(path) });
    return getSignedUrl(this.signer, command, { expiresIn: expiresInSeconds });
  }

  close(): void {
    this.client.destroy();
    if (this.signer !== this.client) this.signer?.destroy();
  }

  /** What the caller may be told: never a credential, never a stack. */
  private translate(error: unknown, path?: string): ServiceException {
    if (error instanceof ServiceException) {
      return error.codeName === 'FETCH_REFUSED' ? new ServiceException('STORAGE_UNREACHABLE', error.message) : error;
    }
    const { endpoint } = this.options;
    const where = endpoint ? describeUrl(endpoint) : `${this.options.kind.toUpperCase()} in ${this.options.region}`;
    if (error instanceof S3ServiceException) {
      const status = error.$metadata.httpStatusCode ?? 0;
      if (NOT_FOUND.has(error.name) || (status === 404 && path !== undefined && error.name !== 'NoSuchBucket')) {
        return new ServiceException('STORAGE_OBJECT_NOT_FOUND', `Object "${path}" does not exist in the storage.`);
      }
      if (error.name === 'NoSuchBucket') {
        return new ServiceException('STORAGE_UNREACHABLE', `Bucket "${this.options.bucket}" does not exist.`);
      }
      // Throttling (429, or SlowDown's 503) and 408 are STORAGE_BACKEND_FAILED: they may pass later.
      return answerFailure(status, error.name, `bucket "${this.options.bucket}"`, REFUSED.has(error.name));
    }
    return noAnswer(where, error);
  }
}

/**
 * Cuts the answer to `command` at `maxBytes` (cappedBody), calling `onOver` when it does. Added inside the
 * deserializer (a lower priority in its step), it sees the raw answer before the XML is read whole.
 */
function capAnswer(command: ListObjectsV2Command, maxBytes: number, onOver: () => void): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const response = result.response as { body?: Readable };
      if (response.body) response.body = cappedBody(response.body, maxBytes, onOver);
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'listingPageBytes' },
  );
}
