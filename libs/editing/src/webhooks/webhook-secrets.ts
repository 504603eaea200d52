import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '@app/common';
import { WebhookSecretEntity, WebhookSecretRows } from '@app/database';
import { CredentialCipher, webhookSecretBinding } from '@app/storage';
import { generateWebhookSecret, SHOWN_SECRET_LENGTH, webhookKey } from './webhook-signature';

/** What the envelope holds: the secret, and the one it replaced while that still signs (the rotation overlap). */
interface StoredSecret {
  secret: string;
  previous?: { secret: string; until: string };
}

/** A secret that still signs after a rotation: its prefix, and until when (WEBHOOK_SECRET_OVERLAP_MS). */
export interface PreviousWebhookSecret {
  prefix: string;
  until: Date;
}

/** What a rotation did: the new secret (shown once), the one that keeps signing, and one it stopped at once. */
export interface RotatedWebhookSecret {
  entity: WebhookSecretEntity;
  secret: string;
  /** The secret replaced now, which goes on signing beside the new one until the overlap ends; null when none. */
  previous: PreviousWebhookSecret | null;
  /**
   * The prefix of an earlier secret that was still in its overlap and stops signing now (a second rotation within
   * the overlap: only the secret just replaced keeps signing); null when none.
   */
  dropped: string | null;
}

/**
 * The webhook signing secret of each account: created, rotated, and read to sign. Stored encrypted with the
 * storage credentials' key (CredentialCipher), bound to its account; only its prefix is ever shown again. After a
 * rotation the replaced secret goes on signing beside the new one for WEBHOOK_SECRET_OVERLAP_MS (each delivery
 * then carries two signatures), so that receivers can switch without losing deliveries.
 */
@Injectable()
export class WebhookSecrets implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly secrets: WebhookSecretRows,
    private readonly cipher: CredentialCipher,
    private readonly config: AppConfig,
  ) {}

  /** The account's secret without its value (null when it has none yet), and the previous one while it signs. */
  async find(
    accountId: number,
  ): Promise<{ entity: WebhookSecretEntity | null; previous: PreviousWebhookSecret | null }> {
    const entity = await this.secrets.find(accountId);
    return { entity, previous: entity ? previousOf(this.open(entity)) : null };
  }

  /**
   * Replaces the account's secret with a new one (effective for the next delivery attempt) and returns it once.
   * The replaced one, if anybody saw it, signs beside it until the overlap ends; a secret still in an earlier
   * overlap stops now (the answer names it).
   */
  async rotate(accountId: number): Promise<RotatedWebhookSecret> {
    const current = await this.secrets.find(accountId);
    const stored = current ? this.open(current) : undefined;
    const overlap = this.config.webhookSecretOverlapMs;
    const keep = current?.shown && overlap > 0 && stored;
    const previous = keep ? { secret: stored.secret, until: new Date(Date.now() + overlap).toISOString() } : undefined;
    const secret = generateWebhookSecret();
    const entity = this.row(accountId, { secret, ...(previous && { previous }) }, true);
    await this.secrets.put(entity);
    const dropped = stored && previousOf(stored);
    return { entity, secret, previous: previousOf({ secret, previous }), dropped: dropped ? dropped.prefix : null };
  }

  /**
   * The HMAC keys of the account's secrets: the current one, then the previous one while its overlap lasts. An
   * account without one gets one here, never shown (an admin rotates it to learn one), so that no webhook ever
   * leaves unsigned; when processes race, the first insert wins for all.
   */
  async signingKeys(accountId: number): Promise<Buffer[]> {
    const entity =
      (await this.secrets.find(accountId)) ??
      (await this.secrets.putIfAbsent(this.row(accountId, { secret: generateWebhookSecret() }, false)));
    const stored = this.open(entity);
    const previous = previousOf(stored) && stored.previous;
    return [stored.secret, ...(previous ? [previous.secret] : [])].map(webhookKey);
  }

  private open(entity: WebhookSecretEntity): StoredSecret {
    return this.cipher.decrypt<StoredSecret>(entity.secret, webhookSecretBinding(entity.accountId));
  }

  /** Re-encrypts secrets written with an earlier storage encryption key, as storage credentials are. */
  async onApplicationBootstrap(): Promise<void> {
    const rows = (await this.secrets.all()).map((entity) => ({
      accountId: entity.accountId,
      envelope: entity.secret,
      associatedData: webhookSecretBinding(entity.accountId),
    }));
    const resealed = await this.cipher.resealStale(
      rows,
      (row, secret) => this.secrets.replaceSecret(row.accountId, row.envelope, secret),
      (row, error) =>
        this.logger.error(`Account ${row.accountId}: cannot re-encrypt its webhook secret: ${error.message}`),
    );
    if (resealed > 0) this.logger.log(`Re-encrypted ${resealed} webhook secrets with the current key`);
  }

  private row(accountId: number, stored: StoredSecret, shown: boolean): WebhookSecretEntity {
    return Object.assign(new WebhookSecretEntity(), {
      accountId,
      secret: this.cipher.encrypt(stored, webhookSecretBinding(accountId)),
      prefix: stored.secret.slice(0, SHOWN_SECRET_LENGTH),
      shown,
      createdAt: new Date(),
    });
  }
}

/** The previous secret of a stored one while it still signs, else null. */
function previousOf(stored: StoredSecret): PreviousWebhookSecret | null {
  const previous = stored.previous;
  if (!previous || Date.parse(previous.until) <= Date.now()) return null;
  return { prefix: previous.secret.slice(0, SHOWN_SECRET_LENGTH), until: new Date(previous.until) };
}
