import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/**
 * The secret an account's webhooks are signed with (one per account). Stored only as a CredentialCipher envelope
 * (libs/storage); what may be shown is its prefix, when it was made, and whether it was ever shown.
 */
@Entity({ name: 'webhook_secrets' })
export class WebhookSecretEntity {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  /** AES-256-GCM envelope of the secret (`v2.<key id>.<iv>.<tag>.<ciphertext>`). */
  @Column({ type: 'text' })
  secret: string;

  /** Start of the secret (`whsec_` and 8 characters), to tell secrets apart. */
  @Column({ type: 'varchar', length: 16 })
  prefix: string;

  /**
   * False for a secret the service created itself to sign a webhook of an account that had none: nobody has
   * seen it, so its receivers cannot verify until an admin rotates it.
   */
  @Column({ type: 'boolean', default: false })
  shown: boolean;

  /** When this secret was made (the last rotation). */
  @Column({ name: 'created_at', type: Date })
  createdAt: Date;
}
