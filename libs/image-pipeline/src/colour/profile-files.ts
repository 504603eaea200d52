import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * sharp takes an output profile only as a file path, so a source's embedded profile that the output keeps
 * (CMYK, grey) is written to a private folder (mode 0700, made per process) under a name from its hash.
 * At most `limit` files are kept (least recently used leave); a failed write is forgotten, not cached.
 */
export class ProfileFiles {
  private folder?: Promise<string>;
  private readonly files = new Map<string, Promise<string>>();

  constructor(private readonly limit = 32) {}

  path(icc: Buffer): Promise<string> {
    const name = createHash('sha256').update(icc).digest('hex').slice(0, 32);
    const known = this.files.get(name);
    if (known) {
      this.files.delete(name);
      this.files.set(name, known);
      return known;
    }
    const written = this.write(name, icc);
    this.files.set(name, written);
    written.catch(() => this.files.delete(name));
    this.evict();
    return written;
  }

  private async write(name: string, icc: Buffer): Promise<string> {
    this.folder ??= mkdtemp(join(tmpdir(), 'atelier-icc-'));
    const folder = await this.folder;
    const path = join(folder, `${name}.icc`);
    const partial = join(folder, `${name}.${randomBytes(6).toString('hex')}.part`);
    await writeFile(partial, icc, { mode: 0o600 });
    await rename(partial, path);
    return path;
  }

  private evict(): void {
    while (this.files.size > this.limit) {
      const [oldest, file] = this.files.entries().next().value as [string, Promise<string>];
      this.files.delete(oldest);
      // a pipeline may still read it: remove it a little later
      void file.then(
        (path) => setTimeout(() => void rm(path, { force: true }), 60_000).unref(),
        () => undefined,
      );
    }
  }

  async close(): Promise<void> {
    const folder = this.folder;
    this.folder = undefined;
    this.files.clear();
    if (folder) await rm(await folder, { recursive: true, force: true });
  }
}
