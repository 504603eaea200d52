import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { StorageModule } from '@app/storage';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookSender } from './webhook-sender';

/** Webhook signing secrets per account and the signed delivery of task webhooks (API and worker). */
@Module({
  imports: [DatabaseModule, StorageModule],
  providers: [WebhookSecrets, WebhookSender],
  exports: [WebhookSecrets, WebhookSender],
})
export class WebhooksModule {}
