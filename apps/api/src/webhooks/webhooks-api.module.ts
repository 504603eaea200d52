import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/editing';
import { WebhookSecretController } from './webhook-secret.controller';

/** `/v1/webhooks/secret` (scope `admin`): the account's webhook signing secret. */
@Module({ imports: [WebhooksModule], controllers: [WebhookSecretController] })
export class WebhooksApiModule {}
