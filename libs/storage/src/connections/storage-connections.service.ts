import { createHash } from 'node:crypto';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, LruCache, ServiceException } from '@app/common';
import { isUniqueViolation, StorageEntity, StorageRows, type StorageColumns } from '@app/database';
import { CredentialCipher } from '../credentials/credential-cipher';
import { legacyStorageSecretBinding, storageSecretBinding } from '../credentials/secret-binding';
import { StorageDriverFactory } from '../drivers/storage-driver.factory';
import type { StorageDriver } from '../drivers/storage-driver';
import type { PublicParameters, StorageConnection, StorageSecret, StorageType } from './storage-parameters';

/** A storage as it is saved: name, kind, what may be shown, and the secret (encrypted on the way in). */
export interface StorageSpec {
  name: string;
  type: StorageType;
  parameters: PublicParameters;
  secret: StorageSecret | null;
}

/** Drivers kept open for reuse (S3 clients hold connection pools); the least recently used is closed first. */
const DRIVER_CACHE_SIZE = 64;
/** Storages found by name kept for LOOKUP_CACHE_MS (those named by the requests and items of the moment). */
const LOOKUP_CACHE_SIZE = 256;

/**
 * Storage connections of accounts: persistence with the secret encrypted, and the driver of each. Every lookup
 * takes the account, so one account never reaches another's storages.
 */
@Injectable()
export class StorageConnections implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Storage');
  private readonly drivers = new Map<string, StorageDriver>();
  private readonly retiring = new Map<NodeJS.Timeout, StorageDriver>();
  /** Storages by `account\0name`, for {@link lookUp}; only found ones (a storage created meanwhile is found at once). */
  private readonly named: LruCache<string, StorageEntity>;

  constructor(
    private readonly storages: StorageRows,
    private readonly cipher: CredentialCipher,
    private readonly factory: StorageDriverFactory,
    private readonly config: AppConfig,
  ) {
    this.named = new LruCache(config.lookupCacheMs > 0 ? LOOKUP_CACHE_SIZE : 0, config.lookupCacheMs);
  }

  list(accountId: number): Promise<StorageEntity[]> {
    return this.storages.list(accountId);
  }

  /** The storage, or 404 `Storage not found.` when it does not exist in this account. */
  async get(accountId: number, id: number): Promise<StorageEntity> {
    const storage = await this.storages.find(accountId, id);
    if (!storage) throw new ServiceException('STORAGE_NOT_FOUND');
    return storage;
  }

  findByName(accountId: number, name: string): Promise<StorageEntity | null> {
    return this.storages.findByName(accountId, name);
  }

  /**
   * {@link findByName} for resolving references, kept LOOKUP_CACHE_MS: a batch item resolved two (its input and
   * its destination), each a database query. A storage changed or deleted through this process is forgotten at
   * once; through another (the API, while a worker runs items) it is used for at most that long.
   */
  async lookUp(accountId: number, name: string): Promise<StorageEntity | null> {
    const key = `${accountId}\0${name}`;
    const known = this.named.get(key);
    if (known) return known;
    const storage = await this.findByName(accountId, name);
    if (storage) this.named.set(key, storage);
    return storage;
  }

  /**
   * Inserts the row, then encrypts the secret for the id it got, in one transaction: the envelope is bound to its
   * row, and no row is ever seen without the secret it was created with.
   */
  async create(accountId: number, spec: StorageSpec): Promise<StorageEntity> {
    await this.assertNameFree(accountId, spec.name);
    return this.withNameConflict(() =>
      this.storages.insert(accountId, this.columns(spec), (id) =>
        spec.secret ? this.cipher.encrypt(spec.secret, storageSecretBinding(accountId, id)) : null,
      ),
    );
  }

  async update(storage: StorageEntity, spec: StorageSpec): Promise<StorageEntity> {
    if (spec.name !== storage.name) await this.assertNameFree(storage.accountId, spec.name);
    this.forget(storage);
    Object.assign(storage, this.columns(spec), {
      secret: spec.secret ? this.cipher.encrypt(spec.secret, this.binding(storage)) : null,
    });
    return this.withNameConflict(() => this.storages.save(storage));
  }

  async remove(storage: StorageEntity): Promise<void> {
    this.forget(storage);
    await this.storages.delete(storage.accountId, storage.id);
  }

  /**
   * The connection with its secret decrypted: for drivers, and for PATCH merges. Never for responses.
   * @param options.lenient a secret that cannot be decrypted (its key is gone) counts as absent, so that a PATCH
   *   with new credentials can repair the storage.
   */
  connection(storage: StorageEntity, options: { lenient?: boolean } = {}): StorageConnection {
    let secret: StorageSecret | null = null;
    try {
      secret = storage.secret ? this.decrypt(storage, storage.secret) : null;
    } catch (error) {
      if (!options.lenient) throw error;
    }
    return { type: storage.type as StorageType, parameters: storage.parameters as unknown as PublicParameters, secret };
  }

  /**
   * Proves that the service can reach a storage before it is saved: 422 STORAGE_UNREACHABLE with the reason
   * (missing bucket, refused credentials, forbidden or silent endpoint) otherwise.
   */
  async check(spec: StorageSpec): Promise<void> {
    const driver = this.factory.create(spec);
    try {
      await driver.check(this.config.storageCheckTimeoutMs);
    } catch (error) {
      // Whatever the driver says (refused address, missing bucket, timeout), for a check it is "unreachable".
      if (error instanceof ServiceException) throw new ServiceException('STORAGE_UNREACHABLE', error.message);
      throw error;
    } finally {
      driver.close();
    }
  }

  /** The (cached) driver of a saved storage. */
  driver(storage: StorageEntity): StorageDriver {
    // Keyed by content, not by updated_at (whole seconds on SQLite): a change always gets a new driver.
    const key = `${storage.id}:${createHash('sha256')
      .update(`${storage.type}\0${JSON.stringify(storage.parameters)}\0${storage.secret ?? ''}`)
      .digest('hex')}`;
    let driver = this.drivers.get(key);
    if (driver) {
      this.drivers.delete(key);
    } else {
      driver = this.factory.create(this.connection(storage));
      if (this.drivers.size >= DRIVER_CACHE_SIZE) {
        const [oldest, evicted] = this.drivers.entries().next().value as [string, StorageDriver];
        this.drivers.delete(oldest);
        this.retire(evicted);
      }
    }
    this.drivers.set(key, driver);
    return driver;
  }

  /**
   * Re-encrypts, at start, secrets written with an earlier key (a key rotation) or as envelope v1 (bound to the
   * account only; now to the row as well).
   */
  async onApplicationBootstrap(): Promise<void> {
    const storages = await this.storages.sealed();
    const sealed = storages
      .filter((storage) => storage.secret !== null)
      .map((storage) => ({
        id: storage.id,
        envelope: storage.secret!,
        associatedData: this.binding(storage),
        legacyAssociatedData: legacyStorageSecretBinding(storage.accountId),
      }));
    const rotated = await this.cipher.resealStale(
      sealed,
      // Only if unchanged meanwhile: a PATCH by another process must not be overwritten with the old secret.
      (row, secret) => this.storages.replaceSecret(row.id, row.envelope, secret),
      (row, error) => this.logger.error(`Storage ${row.id}: cannot re-encrypt its credentials: ${error.message}`),
    );
    if (rotated > 0) this.logger.log(`Re-encrypted the credentials of ${rotated} storages with the current key`);
  }

  /** Closed in the last shutdown phase: the work drained before it (beforeApplicationShutdown) still uses it. */
  onApplicationShutdown(): void {
    for (const driver of this.drivers.values()) driver.close();
    this.drivers.clear();
    for (const [timer, driver] of this.retiring) {
      clearTimeout(timer);
      driver.close();
    }
    this.retiring.clear();
  }

  /**
   * Closes a driver that left the cache once the requests that may still use it are over: closing at once would
   * reset their connections. Bounded by the longest a request may take.
   */
  private retire(driver: StorageDriver): void {
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      driver.close();
    }, this.config.fetchTimeoutMs * 2).unref();
    this.retiring.set(timer, driver);
  }

  private columns(spec: StorageSpec): StorageColumns {
    return { name: spec.name, type: spec.type, parameters: spec.parameters as unknown as Record<string, unknown> };
  }

  private async withNameConflict(save: () => Promise<StorageEntity>): Promise<StorageEntity> {
    try {
      return await save();
    } catch (error) {
      // Two requests racing for one name: the unique index decides, and the loser gets the same 409.
      if (isUniqueViolation(error)) throw new ServiceException('STORAGE_NAME_TAKEN');
      throw error;
    }
  }

  /** 409 when the account already has a storage of this name. */
  async assertNameFree(accountId: number, name: string): Promise<void> {
    if (await this.findByName(accountId, name)) {
      throw new ServiceException('STORAGE_NAME_TAKEN', `A storage named "${name}" already exists.`);
    }
  }

  private forget(storage: StorageEntity): void {
    this.named.deleteWhere((known) => known.id === storage.id);
    for (const [key, driver] of this.drivers) {
      if (key.startsWith(`${storage.id}:`)) {
        this.drivers.delete(key);
        this.retire(driver);
      }
    }
  }

  /** Associated data of the encryption: a secret only decrypts for the storage row (and account) it was saved for. */
  private binding(storage: Pick<StorageEntity, 'id' | 'accountId'>): string {
    return storageSecretBinding(storage.accountId, storage.id);
  }

  private decrypt(storage: Pick<StorageEntity, 'id' | 'accountId'>, envelope: string): StorageSecret {
    return this.cipher.decrypt(envelope, this.binding(storage), legacyStorageSecretBinding(storage.accountId));
  }
}
