import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/** Permission groups a key can carry; `admin` implies all the others. */
export const SCOPES = ['image_editing', 'image_generation', 'storage', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** An API key. The secret itself is never stored: only its SHA-256 hash and a display prefix. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** First characters of the key, safe to show, to tell keys apart. */
  @Column({ type: 'varchar', length: 16 })
  prefix: string;

  /** Hex SHA-256 of the whole key. */
  @Index({ unique: true })
  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  @Column({ type: 'simple-array' })
  scopes: Scope[];

  /**
   * For a key that an account's own admin key created: the operator-made key above it, whose rate limits it
   * shares, so that an account cannot multiply its limits by making keys. Null for keys an operator made.
   */
  @Column({ name: 'grant_key_id', type: 'integer', nullable: true })
  grantKeyId: number | null;

  @ManyToOne(() => ApiKeyEntity)
  @JoinColumn({ name: 'grant_key_id' })
  grant?: ApiKeyEntity | null;

  /** Calls the key may make in all; null is unlimited. */
  @Column({ type: 'integer', nullable: true })
  quota: number | null;

  /** Calls made, plus the calls handed to keys that this key created (they come out of its quota). */
  @Column({ name: 'calls_used', type: 'integer', default: 0 })
  callsUsed: number;

  /** Per-key override of the configured requests per second; null uses the default. */
  @Column({ name: 'rate_limit_per_second', type: 'integer', nullable: true })
  rateLimitPerSecond: number | null;

  /** Per-key override of the configured requests per minute; null uses the default. */
  @Column({ name: 'rate_limit_per_minute', type: 'integer', nullable: true })
  rateLimitPerMinute: number | null;

  @Column({ type: 'boolean', default: false })
  revoked: boolean;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @Column({ name: 'last_used_at', nullable: true, type: Date })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', nullable: true, type: Date })
  revokedAt: Date | null;

  /** True on the admin key a first start created, null on every other: the unique index admits one. */
  @Index('IDX_api_keys_bootstrap', { unique: true })
  @Column({ type: 'boolean', nullable: true })
  bootstrap: boolean | null;
}
