import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WebhookSecretEntity } from '../entities';

/** The accounts' webhook signing secrets' rows (one per account; the envelope is the caller's to seal and open). */
@Injectable()
export class WebhookSecretRows {
  constructor(@InjectRepository(WebhookSecretEntity) private readonly secrets: Repository<WebhookSecretEntity>) {}

  find(accountId: number): Promise<WebhookSecretEntity | null> {
    return this.secrets.findOneBy({ accountId });
  }

  /** The account's row, replaced whole when there is one. */
  async put(row: WebhookSecretEntity): Promise<void> {
    await this.secrets.upsert(row, ['accountId']);
  }

  /** Inserts the row unless the account has one already (processes racing: the first insert wins); answers the row. */
  async putIfAbsent(row: WebhookSecretEntity): Promise<WebhookSecretEntity> {
    await this.secrets.createQueryBuilder().insert().values(row).orIgnore().execute();
    return this.secrets.findOneByOrFail({ accountId: row.accountId });
  }

  all(): Promise<WebhookSecretEntity[]> {
    return this.secrets.find();
  }

  /** Replaces the envelope only if it is still `expected` (a rotation by another process meanwhile wins). */
  async replaceSecret(accountId: number, expected: string, secret: string): Promise<void> {
    await this.secrets.update({ accountId, secret: expected }, { secret });
  }
}
