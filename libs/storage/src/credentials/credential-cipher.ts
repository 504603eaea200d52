import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/common';

/** Name of the key file created in DATA_DIR when STORAGE_ENCRYPTION_KEY is not set. */
export const KEY_FILE_NAME = 'storage-encryption.key';

const VERSION = 'v1';

/** A short, non-secret id of a key, stored with each ciphertext so that rotation knows which key wrote it. */
function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** Reads the key file, creating it (32 random bytes, base64, mode 0600) on first use. */
function keyFromFile(dataDir: string): Buffer {
  const path = join(dataDir, KEY_FILE_NAME);
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    // 'wx' fails if another process created the file in the meantime; then that file is read below.
    try {
      writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
      chmodSync(path, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
  return key;
}

/**
 * Encrypts storage credentials at rest with AES-256-GCM. The key comes from STORAGE_ENCRYPTION_KEY or, when that
 * is unset, from a key file created in DATA_DIR at first start. Earlier keys (STORAGE_ENCRYPTION_PREVIOUS_KEYS)
 * still decrypt, so that a rotation can re-encrypt every row with the current key (see docs/configuration.md).
 *
 * Envelope: `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts); the associated data binds a ciphertext to
 * its owner, so a secret copied to another row does not decrypt.
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
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return [VERSION, this.currentId, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  decrypt<T extends object>(envelope: string, associatedData: string): T {
    const [version, id, iv, tag, ciphertext] = envelope.split('.');
    const key = this.keys.get(id);
    if (version !== VERSION || ciphertext === undefined) throw new Error('unknown credential envelope format');
    if (!key) {
      throw new Error(
        `storage credentials were encrypted with key ${id}, which is neither STORAGE_ENCRYPTION_KEY nor one of ` +
          'STORAGE_ENCRYPTION_PREVIOUS_KEYS',
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }

  /** Whether the envelope was written with an earlier key and should be re-encrypted. */
  isStale(envelope: string): boolean {
    return envelope.split('.')[1] !== this.currentId;
  }
}
