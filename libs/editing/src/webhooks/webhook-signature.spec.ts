import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, SHOWN_SECRET_LENGTH, webhookKey, webhookSignatureHeaders } from './webhook-signature';

describe('webhook signatures', () => {
  it("match the Standard Webhooks specification's example, so receivers' libraries verify them", () => {
    const key = webhookKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const headers = webhookSignatureHeaders(
      key,
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      Buffer.from('{"test": 2432232314}'),
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('differ for another id, timestamp, body or key', () => {
    const key = webhookKey(generateWebhookSecret());
    const body = Buffer.from('{"data":{}}');
    const signature = (k: Buffer, id: string, at: number, b: Buffer) =>
      webhookSignatureHeaders(k, id, at, b)['webhook-signature'];
    const base = signature(key, 'task_1_1', 1700000000, body);
    expect(signature(key, 'task_1_2', 1700000000, body)).not.toBe(base);
    expect(signature(key, 'task_1_1', 1700000001, body)).not.toBe(base);
    expect(signature(key, 'task_1_1', 1700000000, Buffer.from('{"data":{} }'))).not.toBe(base);
    expect(signature(webhookKey(generateWebhookSecret()), 'task_1_1', 1700000000, body)).not.toBe(base);
  });

  it('uses secrets of 32 random bytes, shown as whsec_<base64>', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookKey(secret)).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    expect(SHOWN_SECRET_LENGTH).toBe(14);
  });
});
