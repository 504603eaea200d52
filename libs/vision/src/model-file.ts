import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** A model's weights on disk and the SHA-256 they must have. */
export interface ModelFile {
  path: string;
  /** 64 lowercase hex digits. */
  sha256: string;
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
