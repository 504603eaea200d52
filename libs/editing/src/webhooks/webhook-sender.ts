import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { ServiceException } from '@app/common';
import type { EditTaskEntity } from '@app/database';
import { SafeFetcher, unsuccessfulAnswer } from '@app/storage';
import { WebhookSecrets } from './webhook-secrets';
import { signatureHeaders, webhookHmac } from './webhook-signature';

/** Longest body read back from a webhook receiver (only its status matters). */
const ANSWER_MAX_BYTES = 64 * 1024;

/** The delivery id of a task's webhook: the same for every attempt, so receivers can drop a repeated one. */
export function webhookDeliveryId(task: Pick<EditTaskEntity, 'id' | 'createdAt'>): string {
  return `task_${task.id}_${task.createdAt.getTime()}`;
}

/** A webhook's body, as chunks read afresh at each call: it is read twice, to sign it and to send it. */
export type WebhookBody = () => AsyncIterable<Buffer>;

/**
 * POSTs a finished task to its `webhook_url` through SafeFetcher (the address policy and time limits of
 * downloads), signed with the task's account's secret (webhook-signature.ts). The body is never held whole: a
 * first pass over its chunks computes the signature and length, a second one sends it (and refuses to end it
 * when its bytes were not those signed: the receiver then sees a cut body, and the delivery is retried). A
 * 2xx answer is delivered. A
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
    body: WebhookBody,
  ): Promise<void> {
    const keys = await this.secrets.signingKeys(task.accountId);
    const id = webhookDeliveryId(task);
    const timestamp = Math.floor(Date.now() / 1000);
    const hmacs = keys.map((key) => webhookHmac(key, id, timestamp));
    const check = createHash('sha256');
    let length = 0;
    for await (const chunk of body()) {
      for (const hmac of hmacs) hmac.update(chunk);
      check.update(chunk);
      length += chunk.length;
    }
    const digest = check.digest('hex');
    const response = await this.fetcher.open(url, {
      method: 'POST',
      body: { length, open: () => Readable.from(asSigned(body(), digest), { objectMode: false }) },
      headers: { 'content-type': 'application/json', ...signatureHeaders(id, timestamp, hmacs) },
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

/** The chunks again, the last one held back until their digest is the one signed (else an error, never the end). */
async function* asSigned(chunks: AsyncIterable<Buffer>, digest: string): AsyncGenerator<Buffer> {
  const check = createHash('sha256');
  let held: Buffer | undefined;
  for await (const chunk of chunks) {
    if (held) yield held;
    check.update(chunk);
    held = chunk;
  }
  if (check.digest('hex') !== digest) throw new Error('the task changed between signing its webhook and sending it');
  if (held) yield held;
}
