import { Injectable } from '@nestjs/common';
import { ServiceException } from '@app/common';
import type { EditTaskEntity } from '@app/database';
import { SafeFetcher, unsuccessfulAnswer } from '@app/storage';
import { WebhookSecrets } from './webhook-secrets';
import { webhookSignatureHeaders } from './webhook-signature';

/** Longest body read back from a webhook receiver (only its status matters). */
const ANSWER_MAX_BYTES = 64 * 1024;

/** The delivery id of a task's webhook: the same for every attempt, so receivers can drop a repeated one. */
export function webhookDeliveryId(task: Pick<EditTaskEntity, 'id' | 'createdAt'>): string {
  return `task_${task.id}_${task.createdAt.getTime()}`;
}

/**
 * POSTs a finished task to its `webhook_url` through SafeFetcher (the address policy and time limits of
 * downloads), signed with the task's account's secret (webhook-signature.ts). A 2xx answer is delivered. A
 * redirect is not followed (the body and its signature would go to an origin the account never named) and fails
 * for good; any other answer throws for the caller to retry.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly secrets: WebhookSecrets,
  ) {}

  async send(
    task: Pick<EditTaskEntity, 'id' | 'accountId' | 'createdAt'>,
    url: string,
    payload: unknown,
  ): Promise<void> {
    const body = Buffer.from(JSON.stringify(payload));
    const key = await this.secrets.signingKey(task.accountId);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      ...webhookSignatureHeaders(key, webhookDeliveryId(task), timestamp, body),
    };
    const response = await this.fetcher.open(url, {
      method: 'POST',
      body,
      headers,
      maxBytes: ANSWER_MAX_BYTES,
      redirects: false,
    });
    response.body.resume();
    const { status } = response;
    if (status >= 300 && status <= 399) {
      // FETCH_REFUSED is not transient: a redirect answers the same on every attempt.
      throw new ServiceException(
        'FETCH_REFUSED',
        `The webhook answered HTTP ${status}; webhooks do not follow redirects.`,
      );
    }
    if (status < 200 || status > 299) {
      throw unsuccessfulAnswer('The webhook', status);
    }
  }
}
