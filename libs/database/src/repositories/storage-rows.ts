import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { StorageEntity } from '../entities';

/** Whether a write failed on a unique index (PostgreSQL's 23505, SQLite's constraint), for both databases. */
export function isUniqueViolation(error: unknown): boolean {
  const { code } = error as { code?: string };
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** What a storage row holds besides its ids and secret. */
export type StorageColumns = Pick<StorageEntity, 'name' | 'type' | 'parameters'>;

/**
 * The storage connections' rows (libs/storage's StorageConnections reads and writes them only through here):
 * always within one account, the secret an opaque envelope the caller seals.
 */
@Injectable()
export class StorageRows {
  constructor(@InjectRepository(StorageEntity) private readonly storages: Repository<StorageEntity>) {}

  list(accountId: number): Promise<StorageEntity[]> {
    return this.storages.find({ where: { accountId }, order: { id: 'ASC' } });
  }

  find(accountId: number, id: number): Promise<StorageEntity | null> {
    return this.storages.findOne({ where: { accountId, id } });
  }

  findByName(accountId: number, name: string): Promise<StorageEntity | null> {
    return this.storages.findOne({ where: { accountId, name } });
  }

  /**
   * Inserts the row, then stores the envelope `seal` makes for the id it got, in one transaction: no row is ever
   * seen without the secret it was created with. A name already taken fails on the unique index (isUniqueViolation).
   */
  insert(accountId: number, columns: StorageColumns, seal: (id: number) => string | null): Promise<StorageEntity> {
    return this.storages.manager.transaction(async (manager) => {
      const storages = manager.getRepository(StorageEntity);
      const entity = await storages.save(storages.create({ accountId, ...columns, secret: null }));
      const secret = seal(entity.id);
      if (secret !== null) {
        entity.secret = secret;
        await storages.update({ id: entity.id }, { secret });
      }
      return entity;
    });
  }

  save(storage: StorageEntity): Promise<StorageEntity> {
    return this.storages.save(storage);
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.storages.delete({ id, accountId });
  }

  /** Every row's id, account and envelope: what a key rotation at start reads. */
  sealed(): Promise<Pick<StorageEntity, 'id' | 'accountId' | 'secret'>[]> {
    return this.storages.find({ select: { id: true, accountId: true, secret: true } });
  }

  /** Replaces the envelope only if it is still `expected`: a PATCH by another process meanwhile wins. */
  async replaceSecret(id: number, expected: string, secret: string): Promise<void> {
    await this.storages.update({ id, secret: expected }, { secret });
  }
}
