import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, ServiceException } from '@app/common';
import { SafeFetcher } from '@app/storage';

export const SIGNATURE_HEADER = 'x-signature-sha256';
/** Longest body read back from a webhook receiver (only its status matters). */
const ANSWER_MAX_BYTES = 64 * 1024;

/**
 * POSTs a finished task to its `webhook_url` through SafeFetcher (the same address policy, time limits and
 * redirect rules as downloads), signed with HMAC-SHA256 of the raw body in `X-Signature-SHA256` (hex) when
 * WEBHOOK_SECRET is set. A 2xx answer is delivered; anything else throws, for the caller to retry.
 */
@Injectable()
export class WebhookSender {
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly fetcher: SafeFetcher,
  ) {}

  sign(body: Buffer): string | undefined {
    return this.config.webhookSecret
      ? createHmac('sha256', this.config.webhookSecret).update(body).digest('hex')
      : undefined;
  }

  async send(url: string, payload: unknown): Promise<void> {
    const body = Buffer.from(JSON.stringify(payload));
    const signature = this.sign(body);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (signature) headers[SIGNATURE_HEADER] = signature;
    const response = await this.fetcher.open(url, { method: 'POST', body, headers, maxBytes: ANSWER_MAX_BYTES });
    response.body.resume();
    if (response.status < 200 || response.status > 299) {
      throw new ServiceException('FETCH_FAILED', `The webhook answered HTTP ${response.status}.`);
    }
  }
}
