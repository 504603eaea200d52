import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, ensureDataDir, mediaTypeOfExtension, ServiceException } from '@app/common';
import { LocalDriver } from '../drivers/local.driver';
import { S3Driver } from '../drivers/s3.driver';
import type { StorageReadResult } from '../drivers/storage-driver';
import { tracedWrite } from '../drivers/traced-storage.driver';

/** A result kept for TEMP_TTL_SECONDS, for requests without a destination. */
export interface TemporaryObject {
  /** Absolute URL that serves the file without an API key until it expires. */
  url: string;
  key: string;
  /** Bucket name in scaled mode. */
  bucket?: string;
  uri: string;
  size: number;
  expiresAt: Date;
}

/** `<43 base64url characters of 32 random bytes>.<extension>`: unguessable, and nothing else is ever served. */
const OBJECT_NAME = /^[A-Za-z0-9_-]{43}\.[a-z0-9]{2,5}$/;

/** Folder under DATA_DIR of the embedded mode's temporary files. */
export const TEMPORARY_FOLDER = 'temporary';

/** `atelier.storage.type` of the temporary bucket's spans, in either mode. */
const TEMPORARY_STORAGE_TYPE = 'temporary';

/** URL path under which the API serves the embedded temporary bucket. */
export const TEMPORARY_ROUTE = 'tmp';

/**
 * The temporary bucket: on local disk under DATA_DIR, served by the API at `PUBLIC_BASE_URL/tmp/<name>`
 * (embedded mode), or an S3-compatible bucket handed out by presigned URLs (TEMP_BUCKET, scaled mode). Files
 * expire TEMP_TTL_SECONDS after they are written; `sweep()` deletes them, and an expired file is never served.
 */
@Injectable()
export class TemporaryBucket implements OnApplicationShutdown {
  private readonly driver: LocalDriver | S3Driver;

  constructor(private readonly config: AppConfig) {
    const bucket = config.temporaryBucket;
    this.driver = bucket
      ? new S3Driver({
          kind: 's3',
          bucket: bucket.bucket,
          prefix: bucket.prefix,
          endpoint: bucket.endpoint,
          presignEndpoint: bucket.publicEndpoint,
          region: bucket.region,
          accessKey: bucket.accessKey,
          secretKey: bucket.secretKey,
          defaultCredentials: true,
        })
      : this.localDriver(config.dataDir);
  }

  /** Results on local disk, inside DATA_DIR (0700 even when the database is elsewhere). */
  private localDriver(dataDir: string): LocalDriver {
    ensureDataDir(dataDir);
    return new LocalDriver(join(dataDir, TEMPORARY_FOLDER));
  }

  get ttlMs(): number {
    return this.config.temporaryTtlSeconds * 1000;
  }

  /** Stores a result; `extension` without the dot (`jpg`, `png`, ...). */
  async put(body: Readable | Buffer, extension: string, contentType?: string): Promise<TemporaryObject> {
    const name = `${randomBytes(32).toString('base64url')}.${extension.toLowerCase()}`;
    const written = await tracedWrite(TEMPORARY_STORAGE_TYPE, () =>
      this.driver.write(name, body, { contentType: contentType ?? mediaTypeOfExtension(extension)?.mime }),
    );
    const url =
      this.driver instanceof S3Driver
        ? await this.driver.presignedUrl(name, this.config.temporaryTtlSeconds)
        : `${this.config.publicBaseUrl}/${TEMPORARY_ROUTE}/${name}`;
    return {
      url,
      key: written.key,
      bucket: written.bucket,
      uri: written.uri,
      size: written.size,
      expiresAt: new Date(Date.now() + this.ttlMs),
    };
  }

  /** Proves that the bucket can be reached (a probe of a paused task's store), or throws why not. */
  async check(timeoutMs?: number): Promise<void> {
    await this.driver.check(timeoutMs);
  }

  /** Opens a local temporary file for the API to serve; 404 when the name is unknown, malformed or expired. */
  async open(name: string): Promise<StorageReadResult & { contentType: string; expiresAt: Date }> {
    const info = OBJECT_NAME.test(name) && this.driver instanceof LocalDriver ? await this.driver.head(name) : null;
    const expiresAt = new Date((info?.lastModified?.getTime() ?? 0) + this.ttlMs);
    if (!info || expiresAt.getTime() <= Date.now()) throw new ServiceException('TEMPORARY_NOT_FOUND');
    const read = await this.driver.read(name);
    const contentType = mediaTypeOfExtension(name.split('.').pop() ?? '')?.mime ?? 'application/octet-stream';
    return { ...read, contentType, expiresAt };
  }

  /**
   * Deletes every file older than the lifetime; returns how many. Pages through the bucket.
   * @param signal stops the sweep between two files (shutdown).
   */
  async sweep(now = Date.now(), signal?: AbortSignal): Promise<number> {
    let deleted = 0;
    for await (const object of this.driver.list('', { recursive: true })) {
      if (signal?.aborted) break;
      if ((object.lastModified?.getTime() ?? now) + this.ttlMs <= now) {
        await this.driver.delete(object.path);
        deleted += 1;
      }
    }
    return deleted;
  }

  /** Closed in the last shutdown phase: the work drained before it (beforeApplicationShutdown) still uses it. */
  onApplicationShutdown(): void {
    this.driver.close();
  }
}
