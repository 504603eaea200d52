import { PassThrough, pipeline, Transform, type Readable } from 'node:stream';
import { Storage, type Bucket, type File, type FileMetadata } from '@google-cloud/storage';
import { JWT } from 'google-auth-library';
import { ServiceException } from '@app/common';
import type { GcsServiceAccountKey } from '../../connections/storage-parameters';
import { logConnectionFailure } from '../../fetch/connection-failure';
import { describeUrl } from '../../fetch/describe-url';
import { isTransientStatus } from '../../fetch/http-answer';
import { DEFAULT_LISTING_LIMITS, ListingBudget, type ListingLimits } from '../../drivers/listing-limits';
import { folderKey, joinKey, relativePath } from '../../drivers/object-paths';
import type {
  StorageDriver,
  StorageListOptions,
  StorageObjectInfo,
  StorageReadResult,
  StorageWriteOptions,
  StorageWriteResult,
} from '../../drivers/storage-driver';

export type { GcsServiceAccountKey };

export interface GcsServiceAccountDriverOptions {
  bucket: string;
  /** Root prefix inside the bucket, without leading or trailing `/` ('' for the bucket root). */
  prefix: string;
  /** The parsed JSON key of the service account. */
  serviceAccount: GcsServiceAccountKey;
  /** Another JSON API endpoint (Private Google Access such as `https://storage-xyz.p.googleapis.com`, tests). */
  endpoint?: string;
  /**
   * Set for endpoints a user gave: the endpoint's address is judged once, before the first request. The SDK's
   * HTTP stack takes no per-client agent, so later lookups are not pinned as the S3 driver's are.
   */
  guard?: { resolve(url: URL): Promise<unknown> };
  /** Objects per listing page (the JSON API's maximum and default is 1,000). */
  pageSize?: number;
  /** Bounds of one listing (pages, time; the JSON API is Google's own); DEFAULT_LISTING_LIMITS when absent. */
  listing?: ListingLimits;
  /** Automatic retries of idempotent requests on network errors, 408, 429 and 5xx (default 3; 0 turns them off). */
  maxRetries?: number;
}

/** Self-signed tokens name Cloud Storage as their audience (`aud: https://storage.googleapis.com/`). */
const AUDIENCE_HOST = 'storage.googleapis.com';
const OCTET_STREAM = 'application/octet-stream';

/** The HTTP status of an SDK error: ApiError carries it in `code`, gaxios errors in `status`. */
function httpStatus(error: unknown): number | undefined {
  const { code, status, response } = error as { code?: unknown; status?: unknown; response?: { status?: unknown } };
  for (const candidate of [code, status, response?.status]) {
    if (typeof candidate === 'number' && candidate >= 100 && candidate < 600) return candidate;
  }
  return undefined;
}

/**
 * The `gcs` driver for a service-account JSON key, over the JSON API with `@google-cloud/storage`.
 *
 * Requests carry a JWT the driver signs itself with the key (Google's self-signed JWT, the default of Google's
 * own C++ Storage client), so no token endpoint is ever called: one round trip less, and nothing to reach but the
 * storage endpoint. A stream is written through a resumable upload session, which creates the object only when
 * the body has ended cleanly; a failing body aborts the request and cancels the session.
 */
export class GcsServiceAccountDriver implements StorageDriver {
  private readonly auth: JWT;
  private readonly storage: Storage;
  private readonly bucket: Bucket;
  private readonly endpointChecked: Promise<unknown>;

  constructor(private readonly options: GcsServiceAccountDriverOptions) {
    const key = options.serviceAccount;
    this.auth = new JWT({ email: key.client_email, key: key.private_key, keyId: key.private_key_id });
    // Without scopes and with a service path, google-auth-library signs an audience JWT instead of asking
    // oauth2.googleapis.com for a token. Cloud Storage accepts those; it refuses scope-only self-signed JWTs.
    this.auth.defaultServicePath = AUDIENCE_HOST;
    const maxRetries = options.maxRetries ?? 3;
    this.storage = new Storage({
      projectId: key.project_id,
      authClient: this.auth,
      apiEndpoint: options.endpoint,
      // The SDK sends custom endpoints no credentials unless asked to; private endpoints need them.
      useAuthWithCustomEndpoint: true,
      // The SDK reads maxRetries 0 as "default", so turning retries off goes through autoRetry. Seconds.
      retryOptions: { autoRetry: maxRetries > 0, maxRetries: maxRetries || undefined, totalTimeout: 60 },
    });
    this.bucket = this.storage.bucket(options.bucket);
    const { guard, endpoint } = options;
    this.endpointChecked = guard && endpoint ? guard.resolve(new URL(endpoint)) : Promise.resolve();
    this.endpointChecked.catch(() => undefined);
  }

  async read(path: string): Promise<StorageReadResult> {
    const [metadata] = await this.call(() => this.file(path).getMetadata(), path);
    // Reading the generation just described keeps size and bytes consistent when the object is replaced meanwhile.
    const source = this.bucket.file(this.key(path), { generation: metadata.generation }).createReadStream();
    const stream = new PassThrough();
    // Errors while streaming are translated too, so a consumer never sees an SDK error (or its request options).
    source.on('error', (error) => stream.destroy(this.translate(error, path)));
    stream.on('close', () => source.destroy());
    source.pipe(stream);
    const size = metadata.size === undefined ? undefined : Number(metadata.size);
    return { stream, size, contentType: metadata.contentType };
  }

  async write(path: string, body: Readable | Buffer, options: StorageWriteOptions = {}): Promise<StorageWriteResult> {
    const key = this.key(path);
    const contentType = options.contentType ?? OCTET_STREAM;
    let size: number;
    if (Buffer.isBuffer(body)) {
      // One multipart request: the object exists once the request completes, and the SDK checks its CRC32C.
      await this.call(() => this.file(path).save(body, { resumable: false, contentType }), path);
      size = body.length;
    } else {
      size = await this.upload(this.file(path), body, contentType, path);
    }
    const { bucket } = this.options;
    return { path, key, bucket, uri: `gs://${bucket}/${key}`, size };
  }

  async *list(folder: string, options: StorageListOptions = {}): AsyncIterable<StorageObjectInfo> {
    const prefix = folderKey(this.options.prefix, folder);
    const budget = new ListingBudget(this.options.listing ?? DEFAULT_LISTING_LIMITS);
    let pageToken: string | undefined;
    do {
      budget.next(pageToken);
      const [files, next] = await this.call(() =>
        this.bucket.getFiles({
          autoPaginate: false,
          prefix,
          delimiter: options.recursive ? undefined : '/',
          maxResults: this.options.pageSize ?? 1000,
          pageToken,
        }),
      );
      for (const file of files) {
        if (file.name.endsWith('/')) continue;
        yield this.info(relativePath(this.options.prefix, file.name), file.metadata);
      }
      pageToken = next?.pageToken;
    } while (pageToken);
  }

  async head(path: string): Promise<StorageObjectInfo | null> {
    try {
      const [metadata] = await this.call(() => this.file(path).getMetadata(), path);
      return this.info(path, metadata);
    } catch (error) {
      if (error instanceof ServiceException && error.codeName === 'STORAGE_OBJECT_NOT_FOUND') return null;
      throw error;
    }
  }

  async delete(path: string): Promise<void> {
    await this.call(() => this.file(path).delete({ ignoreNotFound: true }), path);
  }

  /**
   * Lists at most one object below the root: that needs the bucket to exist and the key to hold
   * `storage.objects.list`, which the usual object roles grant (a bucket GET would need `storage.buckets.get`).
   */
  async check(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new ServiceException('STORAGE_UNREACHABLE', this.silence())), timeoutMs);
    });
    const listing = this.call(() =>
      this.bucket.getFiles({ autoPaginate: false, prefix: folderKey(this.options.prefix, ''), maxResults: 1 }),
    );
    try {
      await Promise.race([listing, timeout]);
    } catch (error) {
      const reason = error instanceof ServiceException ? error.message : this.silence();
      throw new ServiceException('STORAGE_UNREACHABLE', reason);
    } finally {
      clearTimeout(timer);
      listing.catch(() => undefined);
    }
  }

  /** Nothing to release: the SDK shares its keep-alive pool between clients and signs tokens locally. */
  close(): void {}

  private key(path: string): string {
    return joinKey(this.options.prefix, path);
  }

  private file(path: string): File {
    return this.bucket.file(this.key(path));
  }

  private info(path: string, metadata: FileMetadata): StorageObjectInfo {
    return {
      path,
      size: Number(metadata.size ?? 0),
      lastModified: metadata.updated ? new Date(metadata.updated) : undefined,
      contentType: metadata.contentType,
    };
  }

  /**
   * Streams a body into a resumable session in one request (`Content-Range: bytes 0-*\/*`, as the SDK does):
   * Cloud Storage finalises the object only when that request's body ends. The SDK's own write stream is not
   * used because a failing source leaves its request hanging instead of aborting it.
   */
  private async upload(file: File, body: Readable, contentType: string, path: string): Promise<number> {
    const abort = new AbortController();
    let size = 0;
    let bodyError: unknown;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    // Joined before anything is awaited, so a body that fails early is seen rather than left unhandled.
    pipeline(body, counter, (error) => {
      if (!error) return;
      bodyError ??= error;
      abort.abort();
    });
    let sessionUri: string | undefined;
    try {
      await this.endpointChecked;
      const [uri] = await file.createResumableUpload({ metadata: { contentType } });
      if (this.options.guard && new URL(uri).origin !== new URL(this.storage.apiEndpoint).origin) {
        throw new ServiceException('STORAGE_UNREACHABLE', 'The storage sent the upload to another address.');
      }
      sessionUri = uri;
      const response = await this.auth.request<FileMetadata>({
        url: uri,
        method: 'PUT',
        headers: { 'Content-Range': 'bytes 0-*/*' },
        body: counter,
        signal: abort.signal,
        responseType: 'json',
      });
      return response.data.size === undefined ? size : Number(response.data.size);
    } catch (error) {
      const failedBody = bodyError;
      counter.destroy();
      if (sessionUri) await this.cancelSession(sessionUri);
      if (failedBody === undefined) throw this.translate(error, path);
      if (failedBody instanceof ServiceException) throw failedBody;
      throw new ServiceException('STORAGE_BACKEND_FAILED', 'The upload was cancelled: its data stream failed.');
    }
  }

  /** Cancelling the session (Cloud Storage answers 499) makes sure no later request can complete it. */
  private async cancelSession(sessionUri: string): Promise<void> {
    await this.auth
      .request({ url: sessionUri, method: 'DELETE', validateStatus: () => true, timeout: 10_000 })
      .catch(() => undefined);
  }

  private async call<T>(run: () => Promise<T>, path?: string): Promise<T> {
    try {
      await this.endpointChecked;
      return await run();
    } catch (error) {
      throw this.translate(error, path);
    }
  }

  /** The store as messages name it: a custom endpoint in its described form (docs: describeUrl). */
  private where(): string {
    return this.options.endpoint ? describeUrl(this.options.endpoint) : 'Google Cloud Storage';
  }

  /** What the caller is told about a store that was not reached, whatever the cause (see logConnectionFailure). */
  private silence(): string {
    return `Could not reach ${this.where()}, or it did not answer.`;
  }

  /** What the caller may be told: never the key, a token or a stack; the SDK's own messages are not passed on. */
  private translate(error: unknown, path?: string): ServiceException {
    if (error instanceof ServiceException) {
      return error.codeName === 'FETCH_REFUSED' ? new ServiceException('STORAGE_UNREACHABLE', error.message) : error;
    }
    const { bucket } = this.options;
    const status = httpStatus(error);
    const message = error instanceof Error ? error.message : '';
    if (status === 404) {
      if (path !== undefined && !/bucket does not exist/i.test(message)) {
        return new ServiceException('STORAGE_OBJECT_NOT_FOUND', `Object "${path}" does not exist in storage.`);
      }
      return new ServiceException('STORAGE_UNREACHABLE', `Bucket "${bucket}" does not exist.`);
    }
    if (status === 401) return new ServiceException('STORAGE_UNREACHABLE', 'The credentials were refused.');
    if (status === 403) {
      return new ServiceException(
        'STORAGE_UNREACHABLE',
        `The service account has no permission on bucket "${bucket}".`,
      );
    }
    if (status !== undefined && status >= 400 && !isTransientStatus(status)) {
      return new ServiceException('STORAGE_UNREACHABLE', `Google Cloud Storage refused the request (HTTP ${status}).`);
    }
    if (status !== undefined) {
      return new ServiceException('STORAGE_BACKEND_FAILED', `Google Cloud Storage failed (HTTP ${status}).`);
    }
    const { code } = error as { code?: unknown };
    if (typeof code === 'string' && code.startsWith('ERR_OSSL')) {
      return new ServiceException('STORAGE_UNREACHABLE', 'The service account key cannot sign requests.');
    }
    logConnectionFailure(this.where(), error);
    return new ServiceException('STORAGE_BACKEND_FAILED', this.silence());
  }
}
