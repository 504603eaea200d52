import { realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { ServiceException } from '@app/common';
import { LocalDriver } from '../../drivers/local.driver';
import type {
  StorageDriver,
  StorageListOptions,
  StorageObjectInfo,
  StorageReadResult,
  StorageWriteOptions,
  StorageWriteResult,
} from '../../drivers/storage-driver';

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Whether `path` is `folder` or lies below it (both resolved). */
export function isWithin(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === '' || (!rest.startsWith(`..${sep}`) && rest !== '..' && !rest.startsWith(sep));
}

/**
 * A `local` storage: a folder on the service's disk, under one of the roots its operator allows. The files are
 * the LocalDriver's (atomic writes through a partial file, listings that skip links), and before every use the
 * path, with every link in it followed, must still lie inside the folder, and the folder inside an allowed root:
 * a link that leads out (to /etc, to another team's folder) is refused, not followed.
 */
export class ConfinedFolderDriver implements StorageDriver {
  private readonly files: LocalDriver;

  constructor(
    private readonly folder: string,
    private readonly roots: readonly string[],
  ) {
    this.files = new LocalDriver(folder);
  }

  /** The folder with its links followed, once it is known to lie under an allowed root. */
  private async realFolder(): Promise<string> {
    let real: string;
    try {
      real = await realpath(this.folder);
    } catch (error) {
      if (isMissing(error)) throw unreachable('The folder does not exist on the service.');
      throw error;
    }
    for (const root of this.roots) {
      const realRoot = await realpath(root).catch(() => undefined);
      if (realRoot !== undefined && isWithin(real, realRoot)) return real;
    }
    throw unreachable('The folder is not under a folder this service allows (LOCAL_STORAGE_ROOTS).');
  }

  /** Refuses a path whose deepest existing part, links followed, lies outside the folder. */
  private async confine(path: string): Promise<void> {
    const folder = await this.realFolder();
    let existing = join(this.folder, path);
    for (;;) {
      try {
        if (isWithin(await realpath(existing), folder)) return;
        throw new ServiceException(
          'STORAGE_REFERENCE_INVALID',
          `"${path}" leads outside the storage's folder through a link; links may only point inside it.`,
        );
      } catch (error) {
        if (!isMissing(error) || existing === this.folder) throw error;
        existing = dirname(existing);
      }
    }
  }

  async read(path: string): Promise<StorageReadResult> {
    await this.confine(path);
    return this.files.read(path);
  }

  async write(path: string, body: Readable | Buffer, options?: StorageWriteOptions): Promise<StorageWriteResult> {
    await this.confine(path);
    return this.files.write(path, body, options);
  }

  async *list(folder: string, options?: StorageListOptions): AsyncIterable<StorageObjectInfo> {
    await this.confine(folder);
    yield* this.files.list(folder, options);
  }

  async head(path: string): Promise<StorageObjectInfo | null> {
    await this.confine(path);
    return this.files.head(path);
  }

  async delete(path: string): Promise<void> {
    await this.confine(path);
    return this.files.delete(path);
  }

  async check(): Promise<void> {
    const real = await this.realFolder();
    if (!(await stat(real)).isDirectory()) throw unreachable('The path is a file, not a folder.');
  }

  close(): void {}
}

function unreachable(reason: string): ServiceException {
  return new ServiceException('STORAGE_UNREACHABLE', reason);
}
