import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { AccountEntity } from './account.entity';

/**
 * A named storage connection of an account (an S3 or GCS bucket, or a web folder). What may be shown lives in
 * `parameters`; the secret part of the credentials only in `secret`, encrypted by libs/storage's CredentialCipher.
 */
@Entity({ name: 'storages' })
@Index('IDX_storages_account_name', ['accountId', 'name'], { unique: true })
export class StorageEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @Column({ type: 'varchar', length: 50 })
  name: string;

  /** `s3`, `gcs` or `web_folder`. */
  @Column({ type: 'varchar', length: 16 })
  type: string;

  /** The parameters that may be shown (bucket, path, endpoint, region, access key, base URL), as JSON. */
  @Column({ type: 'simple-json' })
  parameters: Record<string, unknown>;

  /** AES-256-GCM envelope of the secret credentials (`v1.<key id>.<iv>.<tag>.<ciphertext>`), or null. */
  @Column({ type: 'text', nullable: true })
  secret: string | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt: Date;
}
