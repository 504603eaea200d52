import { Injectable, Logger } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { AppConfig, LruCache, ServiceException } from '@app/common';
import { AccountEntity, ApiKeyEntity, DEFAULT_ACCOUNT_NAME, KeyRows, type Scope } from '@app/database';
import { generateKey, hashKey } from './api-key.format';
import { isOperator, limitsExceeded, limitsGrantedBy, operatorLimits, type GrantedLimits } from './key-limits';
import type { Principal } from './principal';

export interface CreateKeyInput {
  name: string;
  scopes: Scope[];
  quota?: number | null;
  /** Account name; the caller's own account when absent. */
  account?: string;
  rateLimit?: { perSecond?: number; perMinute?: number };
}

/**
 * What `PATCH /v1/keys/{id}` changes; absent members stay. `quota: null`: unlimited; a rate limit `null`: the
 * service's default again.
 */
export interface UpdateKeyInput {
  name?: string;
  scopes?: Scope[];
  quota?: number | null;
  rateLimit?: { perSecond?: number | null; perMinute?: number | null };
}

export interface CreatedKey {
  entity: ApiKeyEntity;
  account: string;
  /** The secret, to be shown once. */
  secret: string;
}

/** last_used_at is written at most this often per key, to keep reads cheap. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Principals of presented keys kept (LOOKUP_CACHE_MS): the keys in use at once by one process's clients. */
const PRINCIPAL_CACHE_SIZE = 1000;
/**
 * How long a key answered valid stays "recently seen valid": such a key passes its client address's failure
 * budget (http/request-gate.ts), so that others' bad keys from a shared address do not lock it out.
 */
const RECENTLY_VALID_MS = 15 * 60_000;
/** Keys remembered as recently valid: the keys in use by one process's clients. */
const RECENTLY_VALID_SIZE = 10_000;

/** API keys and accounts: creation, listing, revocation, authentication and call quotas. */
@Injectable()
export class KeysService {
  private readonly adminKeyHash?: Buffer;
  private readonly lastUsedWritten = new Map<number, number>();
  /** What else a revocation stops (the key's tasks: RevokedKeyTasks); run after the key is marked revoked. */
  private readonly revokedListeners: ((keyId: number) => Promise<unknown>)[] = [];
  private readonly logger = new Logger(KeysService.name);
  /**
   * Principals of known keys by their hash, for LOOKUP_CACHE_MS: a key's lookup was a database query on every
   * request. Unknown keys are never kept (a key created meanwhile works at once); revoking or changing a key
   * through this process forgets it (and the keys it granted) at once, through another process within the TTL.
   */
  private readonly principals: LruCache<string, Principal>;
  /** The key id (null: ADMIN_API_KEY) of each key hash answered valid within RECENTLY_VALID_MS, by this process. */
  private readonly recentlyValid = new LruCache<string, number | null>(RECENTLY_VALID_SIZE, RECENTLY_VALID_MS);

  constructor(
    private readonly config: AppConfig,
    private readonly keys: KeyRows,
  ) {
    if (config.adminApiKey) this.adminKeyHash = Buffer.from(hashKey(config.adminApiKey), 'hex');
    this.principals = new LruCache(config.lookupCacheMs > 0 ? PRINCIPAL_CACHE_SIZE : 0, config.lookupCacheMs);
  }

  /** The principal of a presented key, or undefined when unknown or revoked. */
  async authenticate(secret: string): Promise<Principal | undefined> {
    const hash = hashKey(secret);
    const known = this.principals.get(hash);
    if (known) {
      if (known.keyId !== null) this.touch(known.keyId);
      this.recentlyValid.set(hash, known.keyId);
      return known;
    }
    const principal = await this.lookUp(hash);
    if (principal) {
      this.principals.set(hash, principal);
      this.recentlyValid.set(hash, principal.keyId);
    }
    return principal;
  }

  /** Whether the key of this hash was answered valid by this process within the last minutes (and not revoked since). */
  wasRecentlyValid(hash: string): boolean {
    return this.recentlyValid.get(hash) !== undefined;
  }

  /** Forgets the principals of a key and of the keys it granted (revoked or changed). */
  private forget(keyId: number): void {
    this.principals.deleteWhere((principal) => principal.keyId === keyId || principal.grant?.keyId === keyId);
    this.recentlyValid.deleteWhere((id) => id === keyId);
  }

  private async lookUp(hash: string): Promise<Principal | undefined> {
    if (this.adminKeyHash && timingSafeEqual(this.adminKeyHash, Buffer.from(hash, 'hex'))) {
      const account = await this.accountByName(DEFAULT_ACCOUNT_NAME);
      return {
        keyId: null,
        accountId: account.id,
        accountName: account.name,
        scopes: ['admin'],
        quota: null,
        rateLimit: this.rateLimitOf(null),
        grant: null,
      };
    }
    const key = await this.keys.findActive(hash);
    if (!key || !key.account) return undefined;
    this.touch(key.id);
    return {
      keyId: key.id,
      accountId: key.accountId,
      accountName: key.account.name,
      scopes: key.scopes,
      quota: key.quota,
      rateLimit: this.rateLimitOf(key),
      grant: key.grant ? { keyId: key.grant.id, rateLimit: this.rateLimitOf(key.grant) } : null,
    };
  }

  /**
   * Counts one call of the key (every key, with a quota or not); false when its quota is spent. Atomic across
   * processes. `ADMIN_API_KEY` is no row: nothing to count.
   */
  async consumeCall(principal: Principal): Promise<boolean> {
    if (principal.keyId === null) return true;
    return this.keys.chargeCalls(principal.keyId, 1);
  }

  async create(input: CreateKeyInput, caller?: Principal): Promise<CreatedKey> {
    const accountName = input.account ?? caller?.accountName ?? DEFAULT_ACCOUNT_NAME;
    if (caller) this.assertMayManage(caller, accountName);
    const account = await this.findOrCreateAccount(accountName);
    const limits = await this.limitsFor(input, caller);
    const { secret, hash, prefix } = generateKey();
    try {
      await this.keys.insert({
        accountId: account.id,
        name: input.name,
        prefix,
        keyHash: hash,
        scopes: input.scopes,
        quota: limits.quota,
        rateLimitPerSecond: limits.rateLimitPerSecond,
        rateLimitPerMinute: limits.rateLimitPerMinute,
        grantKeyId: limits.grantKeyId,
        callsUsed: 0,
      });
    } catch (error) {
      if (limits.callsFromCreator > 0) await this.moveCalls(caller!.keyId!, -limits.callsFromCreator);
      throw error;
    }
    const saved = await this.keys.findByHash(hash);
    return { entity: saved, account: account.name, secret };
  }

  /** What the new key may get (key-limits.ts); the calls it takes from its creator are taken here. */
  private async limitsFor(input: CreateKeyInput, caller: Principal | undefined): Promise<GrantedLimits> {
    if (isOperator(caller)) return operatorLimits(input);
    const key = await this.keys.findById(caller!.keyId!);
    const limits = limitsGrantedBy({ key, rateLimit: caller!.rateLimit }, input);
    if (limits.callsFromCreator > 0 && !(await this.moveCalls(key.id, limits.callsFromCreator))) {
      // Another request spent the calls between the check and now.
      throw limitsExceeded({ quota: ['quota must be at most the calls left to the key that creates it'] });
    }
    return limits;
  }

  /** Adds to a key's used calls (or gives back, when negative) without passing its quota. Atomic. */
  private moveCalls(keyId: number, calls: number): Promise<boolean> {
    return this.keys.chargeCalls(keyId, calls);
  }

  /**
   * The first admin key of the default account, when there is no key at all: its secret, or undefined when
   * keys exist or another instance created it first. The row carries the one `bootstrap` value its unique
   * index admits, and a conflicting insert is ignored, so instances starting together create one key.
   */
  async createBootstrapKey(): Promise<string | undefined> {
    if ((await this.keys.count()) > 0) return undefined;
    const account = await this.accountByName(DEFAULT_ACCOUNT_NAME);
    const { secret, hash, prefix } = generateKey();
    const made = await this.keys.insertBootstrap({
      accountId: account.id,
      name: 'bootstrap admin',
      prefix,
      keyHash: hash,
      scopes: ['admin'],
    });
    return made ? secret : undefined;
  }

  /** Keys of one account (the caller's own unless an operator names another), oldest first. */
  async list(caller?: Principal, accountName?: string): Promise<{ entity: ApiKeyEntity; account: string }[]> {
    const name = accountName ?? caller?.accountName;
    if (caller && name) this.assertMayManage(caller, name);
    const keys = await this.keys.list(name);
    return keys.map((entity) => ({ entity, account: entity.account?.name ?? '' }));
  }

  /** Runs `listener` after each revocation by this process (an error is logged; the key stays revoked). */
  onRevoked(listener: (keyId: number) => Promise<unknown>): void {
    this.revokedListeners.push(listener);
  }

  /**
   * Revokes a key for good, and stops what it started (its tasks are cancelled). A key outside the caller's reach
   * is reported as not found.
   */
  async revoke(id: number, caller?: Principal): Promise<{ entity: ApiKeyEntity; account: string }> {
    const key = await this.keys.findWithAccount(id);
    if (!key || !key.account || (caller && !this.mayManage(caller, key.account.name))) {
      throw new ServiceException('KEY_NOT_FOUND');
    }
    if (!key.revoked) {
      key.revoked = true;
      key.revokedAt = new Date();
      await this.keys.save(key);
    }
    this.forget(key.id);
    for (const listener of this.revokedListeners) {
      await listener(key.id).catch((error: unknown) =>
        this.logger.error(`key ${key.id} revoked, but what it started was not all stopped: ${String(error)}`),
      );
    }
    return { entity: key, account: key.account.name };
  }

  /**
   * Renames a key or changes its scopes; operators also its quota and rate limits (an account's own admin key
   * could otherwise lift the limits an operator set: 403). A key outside the caller's reach is not found; a
   * revoked key is final (409).
   */
  async update(
    id: number,
    input: UpdateKeyInput,
    caller?: Principal,
  ): Promise<{ entity: ApiKeyEntity; account: string }> {
    const key = await this.keys.findWithAccount(id);
    if (!key || !key.account || (caller && !this.mayManage(caller, key.account.name))) {
      throw new ServiceException('KEY_NOT_FOUND');
    }
    if (key.revoked) throw new ServiceException('KEY_REVOKED');
    const limits = input.quota !== undefined || input.rateLimit !== undefined;
    if (limits && !isOperator(caller)) {
      const fields = [
        ...(input.quota !== undefined ? ['quota'] : []),
        ...(input.rateLimit !== undefined ? ['rate_limit'] : []),
      ];
      throw limitsExceeded(
        Object.fromEntries(fields.map((field) => [field, [`only an operator changes a key's ${field}`]])),
      );
    }
    if (input.name !== undefined) key.name = input.name;
    if (input.scopes !== undefined) key.scopes = input.scopes;
    if (input.quota !== undefined) key.quota = input.quota;
    if (input.rateLimit?.perSecond !== undefined) key.rateLimitPerSecond = input.rateLimit.perSecond;
    if (input.rateLimit?.perMinute !== undefined) key.rateLimitPerMinute = input.rateLimit.perMinute;
    await this.keys.save(key);
    this.forget(key.id);
    return { entity: key, account: key.account.name };
  }

  /** A key of the caller's reach (its own account's, or any for operators), revoked ones included. */
  async get(id: number, caller: Principal): Promise<{ entity: ApiKeyEntity; account: string }> {
    const key = await this.keys.findWithAccount(id);
    if (!key || !key.account || !this.mayManage(caller, key.account.name)) throw new ServiceException('KEY_NOT_FOUND');
    return { entity: key, account: key.account.name };
  }

  /** Operators (key-limits.ts) manage every account; others only their own. */
  private mayManage(caller: Principal, accountName: string): boolean {
    return caller.accountName === accountName || isOperator(caller);
  }

  private assertMayManage(caller: Principal, accountName: string): void {
    if (!this.mayManage(caller, accountName)) {
      throw new ServiceException(
        'AUTH_FORBIDDEN',
        'Only an admin key of the default account may manage other accounts.',
      );
    }
  }

  private async accountByName(name: string): Promise<AccountEntity> {
    const account = await this.keys.findAccount(name);
    if (!account) throw new ServiceException('ACCOUNT_NOT_FOUND');
    return account;
  }

  private async findOrCreateAccount(name: string): Promise<AccountEntity> {
    const account = await this.keys.findOrCreateAccount(name);
    if (!account) throw new ServiceException('ACCOUNT_NOT_FOUND');
    return account;
  }

  private rateLimitOf(key: ApiKeyEntity | null): Principal['rateLimit'] {
    return {
      perSecond: key?.rateLimitPerSecond ?? this.config.rateLimitPerSecond,
      perMinute: key?.rateLimitPerMinute ?? this.config.rateLimitPerMinute,
    };
  }

  /** Records use without a write on every request. */
  private touch(keyId: number): void {
    const now = Date.now();
    if (now - (this.lastUsedWritten.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWritten.set(keyId, now);
    this.keys.recordUse(keyId, new Date(now)).catch((error: unknown) => {
      this.lastUsedWritten.delete(keyId);
      this.logger.warn(`could not record last use of key ${keyId}: ${String(error)}`);
    });
  }
}
