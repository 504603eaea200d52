import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WebhookSecretEntity } from '@app/database';
import { CredentialCipher, webhookSecretBinding } from '@app/storage';
import { generateWebhookSecret, SHOWN_SECRET_LENGTH, webhookKey } from './webhook-signature';

/** What the envelope holds. */
interface StoredSecret {
  secret: string;
}

/**
 * The webhook signing secret of each account: created, rotated, and read to sign. Stored encrypted with the
 * storage credentials' key (CredentialCipher), bound to its account; only its prefix is ever shown again.
 */
@Injectable()
export class WebhookSecrets implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @InjectRepository(WebhookSecretEntity) private readonly secrets: Repository<WebhookSecretEntity>,
    private readonly cipher: CredentialCipher,
  ) {}

  /** The account's secret without its value, or null when it has none yet. */
  find(accountId: number): Promise<WebhookSecretEntity | null> {
    return this.secrets.findOneBy({ accountId });
  }

  /** Replaces the account's secret with a new one (effective for the next delivery attempt); returns it once. */
  async rotate(accountId: number): Promise<{ entity: WebhookSecretEntity; secret: string }> {
    const secret = generateWebhookSecret();
    const entity = this.row(accountId, secret, true);
    await this.secrets.upsert(entity, ['accountId']);
    return { entity, secret };
  }

  /**
   * The HMAC key of the account's secret. An account without one gets one here, never shown (an admin rotates it
   * to learn one), so that no webhook ever leaves unsigned; when processes race, the first insert wins for all.
   */
  async signingKey(accountId: number): Promise<Buffer> {
    let entity = await this.secrets.findOneBy({ accountId });
    if (!entity) {
      const created = this.row(accountId, generateWebhookSecret(), false);
      await this.secrets.createQueryBuilder().insert().values(created).orIgnore().execute();
      entity = await this.secrets.findOneByOrFail({ accountId });
    }
    return webhookKey(this.cipher.decrypt<StoredSecret>(entity.secret, webhookSecretBinding(accountId)).secret);
  }

  /** Re-encrypts secrets written with an earlier storage encryption key, as storage credentials are. */
  async onApplicationBootstrap(): Promise<void> {
    const rows = (await this.secrets.find()).map((entity) => ({
      accountId: entity.accountId,
      envelope: entity.secret,
      associatedData: webhookSecretBinding(entity.accountId),
    }));
    const resealed = await this.cipher.resealStale(
      rows,
      (row, secret) => this.secrets.update({ accountId: row.accountId, secret: row.envelope }, { secret }),
      (row, error) =>
        this.logger.error(`Account ${row.accountId}: cannot re-encrypt its webhook secret: ${error.message}`),
    );
    if (resealed > 0) this.logger.log(`Re-encrypted ${resealed} webhook secrets with the current key`);
  }

  private row(accountId: number, secret: string, shown: boolean): WebhookSecretEntity {
    return this.secrets.create({
      accountId,
      secret: this.cipher.encrypt({ secret } satisfies StoredSecret, webhookSecretBinding(accountId)),
      prefix: secret.slice(0, SHOWN_SECRET_LENGTH),
      shown,
      createdAt: new Date(),
    });
  }
}
