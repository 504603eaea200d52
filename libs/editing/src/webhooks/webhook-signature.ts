import { createHmac, randomBytes, type Hmac } from 'node:crypto';

/*
 * Webhook signatures in the Standard Webhooks form (standardwebhooks.com), which receivers' libraries verify:
 * the secret is `whsec_<base64 of 32 random bytes>`, the HMAC key is those bytes, and the signed content is
 * `<webhook-id>.<webhook-timestamp>.<raw body>`: a signature cannot be moved to another body or delivery, and
 * receivers refuse old timestamps (docs/batch.md, "Verifying a webhook").
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
/** Characters of a secret shown after its creation: `whsec_` and 8 more (48 of its 256 bits). */
export const SHOWN_SECRET_LENGTH = WEBHOOK_SECRET_PREFIX.length + 8;

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key of a secret: the bytes after `whsec_`. */
export function webhookKey(secret: string): Buffer {
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/**
 * The HMAC of one delivery attempt, its body still to be added (`update`, chunk by chunk: a body streamed from the
 * database is signed without being held whole).
 * @param id the same for every attempt of one delivery (receivers drop duplicates by it); no `.`
 * @param timestamp whole seconds since the Unix epoch, of this attempt
 */
export function webhookHmac(key: Buffer, id: string, timestamp: number): Hmac {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`);
}

/**
 * The signature headers of one delivery attempt, from its HMACs over the whole body (webhookHmac), one per secret
 * that signs (two during a rotation's overlap): `v1,<a> v1,<b>`, space-separated as Standard Webhooks lists them.
 */
export function signatureHeaders(id: string, timestamp: number, hmacs: Hmac | Hmac[]): Record<string, string> {
  const signatures = (Array.isArray(hmacs) ? hmacs : [hmacs]).map((hmac) => `v1,${hmac.digest('base64')}`);
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signatures.join(' '),
  };
}

/** The signature headers of one delivery attempt of a body held in memory. */
export function webhookSignatureHeaders(
  key: Buffer,
  id: string,
  timestamp: number,
  body: Buffer,
): Record<string, string> {
  return signatureHeaders(id, timestamp, webhookHmac(key, id, timestamp).update(body));
}
