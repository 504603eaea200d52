import type { Readable } from 'node:stream';
import { activeTracer, markFailed, SpanKind, startSpan, withSpan, type Span } from '@app/common';
import type {
  StorageDriver,
  StorageListOptions,
  StorageObjectInfo,
  StorageReadResult,
  StorageWriteOptions,
  StorageWriteResult,
} from './storage-driver';

/** What a storage span names: the operation on the StorageDriver interface. */
export type StorageOperation = 'read' | 'write' | 'list' | 'head' | 'delete';

/**
 * Runs one storage call in a client span `storage.<operation>` that says the kind of store (`s3`, `gcs`,
 * `web_folder`, `temporary`) and the operation, and what came back in numbers; never the bucket, the
 * object's path, an endpoint or a URL (docs/operations.md, "Tracing").
 */
export function storageSpan<T>(type: string, operation: StorageOperation, work: (span?: Span) => Promise<T>) {
  const attributes = storageAttributes(type, operation);
  return withSpan(`storage.${operation}`, { kind: SpanKind.CLIENT, attributes }, work);
}

/** A write in its span, with the bytes written. */
export function tracedWrite(type: string, write: () => Promise<StorageWriteResult>): Promise<StorageWriteResult> {
  return storageSpan(type, 'write', async (span) => {
    const result = await write();
    span?.setAttribute('atelier.storage.bytes', result.size);
    return result;
  });
}

function storageAttributes(type: string, operation: StorageOperation) {
  return { 'atelier.storage.type': type, 'atelier.storage.operation': operation };
}

/**
 * A driver whose every call is a span (storageSpan); `read` spans opening the object (its bytes are then read in
 * the caller's `edit.read` stage), `list` the whole listing as its caller consumes it, page after page.
 */
class TracedStorageDriver implements StorageDriver {
  constructor(
    private readonly inner: StorageDriver,
    private readonly type: string,
  ) {}

  read(path: string): Promise<StorageReadResult> {
    return storageSpan(this.type, 'read', async (span) => {
      const result = await this.inner.read(path);
      if (result.size !== undefined) span?.setAttribute('atelier.storage.bytes', result.size);
      return result;
    });
  }

  write(path: string, body: Readable | Buffer, options?: StorageWriteOptions): Promise<StorageWriteResult> {
    return tracedWrite(this.type, () => this.inner.write(path, body, options));
  }

  async *list(folder: string, options?: StorageListOptions): AsyncIterable<StorageObjectInfo> {
    // Started by hand: a generator's body cannot run inside withSpan's callback. Not made active, so the
    // caller's work between objects is not parented to it.
    const span = startSpan(`storage.list`, { kind: SpanKind.CLIENT, attributes: storageAttributes(this.type, 'list') });
    let count = 0;
    try {
      for await (const object of this.inner.list(folder, options)) {
        count += 1;
        yield object;
      }
    } catch (error) {
      if (span) markFailed(span, error);
      throw error;
    } finally {
      span?.setAttribute('atelier.storage.objects', count);
      span?.end();
    }
  }

  head(path: string): Promise<StorageObjectInfo | null> {
    return storageSpan(this.type, 'head', () => this.inner.head(path));
  }

  delete(path: string): Promise<void> {
    return storageSpan(this.type, 'delete', () => this.inner.delete(path));
  }

  check(timeoutMs?: number): Promise<void> {
    return this.inner.check(timeoutMs);
  }

  close(): void {
    this.inner.close();
  }
}

/** `driver` with a span per call while tracing is on; the driver itself when off (no cost). */
export function tracedDriver(driver: StorageDriver, type: string): StorageDriver {
  return activeTracer() ? new TracedStorageDriver(driver, type) : driver;
}
