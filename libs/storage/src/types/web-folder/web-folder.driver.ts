import { ServiceException } from '@app/common';
import { isTransientStatus } from '../../fetch/http-answer';
import type { SafeFetchOptions, SafeFetchResponse } from '../../fetch/safe-fetcher.types';
import type {
  StorageDriver,
  StorageObjectInfo,
  StorageReadResult,
  StorageWriteResult,
} from '../../drivers/storage-driver';

/** The part of SafeFetcher a web folder needs. */
export interface WebFetcher {
  open(url: string, options?: SafeFetchOptions): Promise<SafeFetchResponse>;
}

/**
 * A read-only folder on a web server: `base_url` + path, read through the SSRF-safe fetcher. The web has no
 * listing and no upload, so `list`, `write` and `delete` answer STORAGE_OPERATION_UNSUPPORTED with the way out.
 */
export class WebFolderDriver implements StorageDriver {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly fetcher: WebFetcher,
  ) {
    this.base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  }

  /** Each segment is percent-encoded, so a path can never change the host or climb above the base URL. */
  url(path: string): string {
    return this.base + path.split('/').map(encodeURIComponent).join('/');
  }

  async read(path: string): Promise<StorageReadResult> {
    const response = await this.fetcher.open(this.url(path));
    if (response.status >= 200 && response.status < 300) {
      return { stream: response.body, size: response.size, contentType: response.contentType };
    }
    response.body.destroy();
    if (response.status === 404 || response.status === 410) {
      throw new ServiceException('STORAGE_OBJECT_NOT_FOUND', `Object "${path}" does not exist in the web folder.`);
    }
    throw this.failed(response.status, path);
  }

  async head(path: string): Promise<StorageObjectInfo | null> {
    const response = await this.fetcher.open(this.url(path), { method: 'HEAD' });
    response.body.destroy();
    if (response.status === 404 || response.status === 410) return null;
    if (response.status < 200 || response.status >= 300) throw this.failed(response.status, path);
    const modified = response.headers['last-modified'];
    return {
      path,
      size: response.size ?? 0,
      lastModified: modified ? new Date(modified) : undefined,
      contentType: response.headers['content-type']?.split(';')[0],
    };
  }

  write(): Promise<StorageWriteResult> {
    return Promise.reject(
      new ServiceException(
        'STORAGE_OPERATION_UNSUPPORTED',
        'A web_folder storage is read-only; write results to an s3 or gcs storage, or leave out the output.',
      ),
    );
  }

  async *list(): AsyncIterable<StorageObjectInfo> {
    throw new ServiceException(
      'STORAGE_OPERATION_UNSUPPORTED',
      'A web_folder storage cannot be listed; give its files as a list of storage:// references or URLs.',
    );
  }

  delete(): Promise<void> {
    return Promise.reject(
      new ServiceException(
        'STORAGE_OPERATION_UNSUPPORTED',
        'A web_folder storage is read-only; nothing can be deleted.',
      ),
    );
  }

  /** Reachable means: the address is allowed and the server answers HTTP (a folder often has no index page). */
  async check(): Promise<void> {
    const response = await this.fetcher.open(this.base, { method: 'HEAD' });
    response.body.destroy();
  }

  close(): void {}

  private failed(status: number, path: string): ServiceException {
    // A throttled or failing server may answer next time; any other refusal of the object is final.
    return isTransientStatus(status)
      ? new ServiceException('STORAGE_BACKEND_FAILED', `The web folder answered HTTP ${status} for "${path}".`)
      : new ServiceException('STORAGE_OBJECT_NOT_FOUND', `The web folder answered HTTP ${status} for "${path}".`);
  }
}
