import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, opendir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceException } from '@app/common';
import type {
  StorageDriver,
  StorageListOptions,
  StorageObjectInfo,
  StorageReadResult,
  StorageWriteOptions,
  StorageWriteResult,
} from './storage-driver';

/** Files being written carry this suffix until they are complete; listings skip them. */
const PARTIAL = '.partial';

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * A folder on local disk behind the storage interface: the embedded mode's temporary bucket. A write goes to a
 * hidden partial file beside the target and is renamed over it when complete (rename is atomic on one file
 * system), so readers never see half a file.
 */
export class LocalDriver implements StorageDriver {
  constructor(private readonly root: string) {}

  private file(path: string): string {
    const file = join(this.root, path);
    // StorageResolver refuses `..`; this is the second lock on the door.
    if (relative(this.root, file).startsWith('..')) throw new ServiceException('STORAGE_REFERENCE_INVALID');
    return file;
  }

  async read(path: string): Promise<StorageReadResult> {
    const file = this.file(path);
    const info = await this.head(path);
    if (!info)
      throw new ServiceException('STORAGE_OBJECT_NOT_FOUND', `Object "${path}" does not exist in the storage.`);
    return { stream: createReadStream(file), size: info.size };
  }

  async write(path: string, body: Readable | Buffer, _options?: StorageWriteOptions): Promise<StorageWriteResult> {
    const file = this.file(path);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const partial = join(dirname(file), `.${randomBytes(8).toString('hex')}${PARTIAL}`);
    try {
      // A result in memory (every edit's) is one write; a stream goes through a file stream.
      if (Buffer.isBuffer(body)) await writeFile(partial, body, { mode: 0o600 });
      else await pipeline(body, createWriteStream(partial, { mode: 0o600 }));
      await rename(partial, file);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    const size = Buffer.isBuffer(body) ? body.length : (await stat(file)).size;
    return { path, key: path, uri: `file://${file}`, size };
  }

  async *list(folder: string, options: StorageListOptions = {}): AsyncIterable<StorageObjectInfo> {
    const start = this.file(folder.replace(/\/+$/, ''));
    yield* this.walk(start, options.recursive === true);
  }

  private async *walk(directory: string, recursive: boolean): AsyncIterable<StorageObjectInfo> {
    let entries;
    try {
      entries = await opendir(directory);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for await (const entry of entries) {
      const full = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (recursive) yield* this.walk(full, true);
      } else if (entry.isFile() && !entry.name.endsWith(PARTIAL)) {
        const info = await stat(full).catch(() => null);
        if (info)
          yield { path: relative(this.root, full).split(sep).join('/'), size: info.size, lastModified: info.mtime };
      }
    }
  }

  async head(path: string): Promise<StorageObjectInfo | null> {
    try {
      const info = await stat(this.file(path));
      return info.isFile() ? { path, size: info.size, lastModified: info.mtime } : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(path: string): Promise<void> {
    await unlink(this.file(path)).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
  }

  close(): void {}
}
