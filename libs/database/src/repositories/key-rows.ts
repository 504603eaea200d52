import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AccountEntity, ApiKeyEntity } from '../entities';
import { callsLeft, chargeKeyCalls } from '../key-quota';

/** The columns of a new key (its account, hash and limits); the rest take their defaults. */
export type NewKey = Pick<ApiKeyEntity, 'accountId' | 'name' | 'prefix' | 'keyHash' | 'scopes'> &
  Partial<Pick<ApiKeyEntity, 'quota' | 'rateLimitPerSecond' | 'rateLimitPerMinute' | 'grantKeyId' | 'callsUsed'>>;

/** The API keys' and accounts' rows (the API's KeysService reads and writes them only through here). */
@Injectable()
export class KeyRows {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
  ) {}

  /** The key that is not revoked with this hash, with its account and the key that granted its limits. */
  findActive(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { keyHash, revoked: false }, relations: { account: true, grant: true } });
  }

  findByHash(keyHash: string): Promise<ApiKeyEntity> {
    return this.keys.findOneByOrFail({ keyHash });
  }

  findById(id: number): Promise<ApiKeyEntity> {
    return this.keys.findOneByOrFail({ id });
  }

  /** A key with its account, revoked or not; null when there is none. */
  findWithAccount(id: number): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { id }, relations: { account: true } });
  }

  /** The keys of one account (every account's when absent), with their accounts, oldest first. */
  list(accountName?: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({
      where: accountName ? { account: { name: accountName } } : {},
      relations: { account: true },
      order: { id: 'ASC' },
    });
  }

  async insert(key: NewKey): Promise<void> {
    await this.keys.insert(key);
  }

  /**
   * Inserts the bootstrap key unless one exists (its unique `bootstrap` value admits one: instances starting
   * together create one key); true when this one is the key.
   */
  async insertBootstrap(key: NewKey): Promise<boolean> {
    await this.keys
      .createQueryBuilder()
      .insert()
      .into(ApiKeyEntity)
      .values({ ...key, bootstrap: true })
      .orIgnore()
      .updateEntity(false)
      .execute();
    return this.keys.existsBy({ keyHash: key.keyHash });
  }

  count(): Promise<number> {
    return this.keys.count();
  }

  save(key: ApiKeyEntity): Promise<ApiKeyEntity> {
    return this.keys.save(key);
  }

  /** Adds to a key's used calls (or gives back, when negative) without passing its quota: key-quota.ts. */
  chargeCalls(keyId: number, calls: number): Promise<boolean> {
    return chargeKeyCalls(this.keys.manager, keyId, calls);
  }

  /** The key's calls left; null when it has no quota. */
  callsLeft(keyId: number): Promise<number | null> {
    return callsLeft(this.keys.manager, keyId);
  }

  async recordUse(keyId: number, at: Date): Promise<void> {
    await this.keys.update({ id: keyId }, { lastUsedAt: at });
  }

  findAccount(name: string): Promise<AccountEntity | null> {
    return this.accounts.findOneBy({ name });
  }

  /** The account of this name, made when there is none (processes racing: one row). */
  async findOrCreateAccount(name: string): Promise<AccountEntity | null> {
    const existing = await this.accounts.findOneBy({ name });
    if (existing) return existing;
    await this.accounts.createQueryBuilder().insert().into(AccountEntity).values({ name }).orIgnore().execute();
    return this.accounts.findOneBy({ name });
  }
}
