import type { Readable } from 'node:stream';

/** One object of a storage, addressed by its path relative to the storage's root (no leading `/`). */
export interface StorageObjectInfo {
  /** Path relative to the storage root (its `path`/`prefix` parameter removed), e.g. `shoes/red.jpg`. */
  path: string;
  /** Size in bytes. */
  size: number;
  lastModified?: Date;
  contentType?: string;
}

/** An open object: its bytes as a stream, with what is known before reading them. */
export interface StorageReadResult {
  stream: Readable;
  /** Size in bytes when the store declares it. */
  size?: number;
  contentType?: string;
}

export interface StorageWriteOptions {
  contentType?: string;
}

/** Where a written object landed, for the response's OutputImageInfo. */
export interface StorageWriteResult {
  /** Path relative to the storage root. */
  path: string;
  /** Key inside the bucket (the root prefix included); equals `path` where there is no bucket. */
  key: string;
  /** Bucket name, where the store has one. */
  bucket?: string;
  /** Native URI of the object: `s3://bucket/key`, `gs://bucket/key`, or an http(s) URL. */
  uri: string;
  size: number;
}

export interface StorageListOptions {
  /** Include objects in sub-folders at any depth (default false: the folder's own files only). */
  recursive?: boolean;
}

/**
 * The one interface every storage kind offers. Paths are relative to the storage root, use `/`, and never
 * contain `..` (StorageResolver refuses those before a driver sees them).
 *
 * Errors: a missing object is `ServiceException('STORAGE_OBJECT_NOT_FOUND')`; an operation the kind cannot do
 * is `STORAGE_OPERATION_UNSUPPORTED`; a refusal by the store (credentials, missing bucket) is
 * `STORAGE_UNREACHABLE` with the reason; a transient failure (network, 5xx) is `STORAGE_BACKEND_FAILED`.
 * Messages never contain a secret.
 */
export interface StorageDriver {
  /** Opens an object for reading. */
  read(path: string): Promise<StorageReadResult>;
  /**
   * Writes an object from a stream or buffer. Atomic: when the body fails or the write is aborted, no object
   * (and no partial object) exists at `path` afterwards, and an earlier object there is left unchanged.
   */
  write(path: string, body: Readable | Buffer, options?: StorageWriteOptions): Promise<StorageWriteResult>;
  /**
   * Lists the files below a folder path (`''` for the root; a trailing `/` is optional), page by page from the
   * store, without holding the whole folder in memory. Folder markers (keys ending in `/`) are skipped.
   */
  list(folder: string, options?: StorageListOptions): AsyncIterable<StorageObjectInfo>;
  /** The object's info, or null when it does not exist. */
  head(path: string): Promise<StorageObjectInfo | null>;
  /** Deletes an object; deleting a missing object is not an error. */
  delete(path: string): Promise<void>;
  /**
   * Proves that the store can be reached with these parameters, or throws a ServiceException whose message is the
   * reason; StorageConnections.check reports every such failure as STORAGE_UNREACHABLE.
   * @param timeoutMs longest wait for the store's answer, in milliseconds.
   */
  check(timeoutMs?: number): Promise<void>;
  /** Releases connections. */
  close(): void;
}
