import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { AppConfig, ConfigError, ensureDataDir } from '@app/common';

/** Name of the key file created in DATA_DIR when STORAGE_ENCRYPTION_KEY is not set. */
export const KEY_FILE_NAME = 'storage-encryption.key';

/** Written: the associated data is prefixed with the version, so a relabelled envelope never decrypts. */
const VERSION = 'v2';
/** Read only, until the start re-encrypts it: the associated data as the caller gave it. */
const LEGACY_VERSION = 'v1';
/** GCM's full tag. A shorter one would be checked on its own length only, so anything else is refused. */
const TAG_BYTES = 16;
const IV_BYTES = 12;

/** The associated data of an envelope version: the version is bound too, so v2 cannot be read as v1. */
function versioned(version: string, associatedData: string): Buffer {
  return Buffer.from(`${version}\0${associatedData}`, 'utf8');
}

/** A short, non-secret id of a key, stored with each ciphertext so that rotation knows which key wrote it. */
function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** Refuses a key file that group or others may read or write (POSIX modes only: nothing is checked on Windows). */
function assertPrivate(path: string): void {
  const mode = statSync(path).mode & 0o777;
  if (process.platform === 'win32' || (mode & 0o066) === 0) return;
  throw new ConfigError([
    {
      variable: 'DATA_DIR',
      message:
        `the storage key file ${path} may be read or written by group or others (mode ${mode.toString(8)}). ` +
        `Run: chmod 600 ${path}`,
    },
  ]);
}

/** Reads the key file, creating it (32 random bytes, base64, mode 0600) on first use. */
function keyFromFile(dataDir: string): Buffer {
  const path = join(dataDir, KEY_FILE_NAME);
  ensureDataDir(dataDir);
  if (!existsSync(path)) {
    // 'wx' fails if another process created the file in the meantime; then that file is read below.
    try {
      writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
      chmodSync(path, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  assertPrivate(path);
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
  return key;
}

/** A stored envelope and what it is bound to, for {@link CredentialCipher.resealStale}. */
export interface SealedSecret {
  envelope: string;
  associatedData: string;
  /** What a v1 envelope of this row was bound to, when the row may hold one. */
  legacyAssociatedData?: string;
}

/**
 * Encrypts secrets at rest (storage credentials, webhook signing secrets) with AES-256-GCM. The key comes from
 * STORAGE_ENCRYPTION_KEY or, when that is unset, from a key file created in DATA_DIR at first start (refused when
 * group or others may read it). Earlier keys (STORAGE_ENCRYPTION_PREVIOUS_KEYS)
 * still decrypt, so that a rotation can re-encrypt every row with the current key (see docs/configuration.md).
 *
 * Envelope: `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts). The associated data (secret-binding.ts) binds
 * a ciphertext to its row, so a secret copied to another row does not decrypt. Version 1 bound storage secrets to
 * their account only; such envelopes still decrypt, with the account's associated data, and count as stale so that
 * the start re-encrypts them as v2.
 */
@Injectable()
export class CredentialCipher {
  private readonly current: Buffer;
  private readonly currentId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(config: AppConfig) {
    this.current = config.storageEncryptionKey ?? keyFromFile(config.dataDir);
    this.currentId = keyId(this.current);
    for (const key of [this.current, ...config.storagePreviousKeys]) this.keys.set(keyId(key), key);
  }

  encrypt(value: object, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(versioned(VERSION, associatedData));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return [VERSION, this.currentId, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /**
   * @param associatedData what the envelope was written for (secret-binding.ts)
   * @param legacyAssociatedData what a v1 envelope of the same row was bound to; without it v1 is refused
   */
  decrypt<T extends object>(envelope: string, associatedData: string, legacyAssociatedData?: string): T {
    const [version, id, iv, tag, ciphertext, extra] = envelope.split('.');
    const aad = version === VERSION ? versioned(VERSION, associatedData) : legacyAssociatedData;
    if (aad === undefined || (version !== VERSION && version !== LEGACY_VERSION)) {
      throw new Error('unknown credential envelope format');
    }
    const ivBytes = Buffer.from(iv ?? '', 'base64url');
    const tagBytes = Buffer.from(tag ?? '', 'base64url');
    if (
      ciphertext === undefined ||
      extra !== undefined ||
      ivBytes.length !== IV_BYTES ||
      tagBytes.length !== TAG_BYTES
    ) {
      throw new Error('malformed credential envelope');
    }
    const key = this.keys.get(id);
    if (!key) {
      throw new Error(
        `the secret was encrypted with key ${id}, which is neither STORAGE_ENCRYPTION_KEY nor one of ` +
          'STORAGE_ENCRYPTION_PREVIOUS_KEYS',
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(typeof aad === 'string' ? Buffer.from(aad, 'utf8') : aad);
    decipher.setAuthTag(tagBytes);
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }

  /**
   * Re-encrypts (at start) every row whose envelope was written with an earlier key or envelope version. `save`
   * stores the new envelope, only where the row still holds the old one (a change made meanwhile by another
   * process wins). A row that cannot be decrypted goes to `failed` and is skipped: one lost key must not stop the
   * service. Returns how many rows were re-encrypted.
   */
  async resealStale<R extends SealedSecret>(
    rows: Iterable<R>,
    save: (row: R, envelope: string) => Promise<unknown>,
    failed: (row: R, error: Error) => void,
  ): Promise<number> {
    let resealed = 0;
    for (const row of rows) {
      if (!this.isStale(row.envelope)) continue;
      let envelope: string;
      try {
        const value = this.decrypt(row.envelope, row.associatedData, row.legacyAssociatedData);
        envelope = this.encrypt(value, row.associatedData);
      } catch (error) {
        failed(row, error as Error);
        continue;
      }
      await save(row, envelope);
      resealed += 1;
    }
    return resealed;
  }

  /** Whether the envelope was written with an earlier key or envelope version and should be re-encrypted. */
  isStale(envelope: string): boolean {
    const [version, id] = envelope.split('.');
    return version !== VERSION || id !== this.currentId;
  }
}
