import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the receiver answers to a delivery: a status and its headers (a redirect's Location, say). */
export type Answer = { status: number; headers?: Record<string, string> };

export interface WebhookReceiver {
  /** Absolute URL of a path on this receiver. */
  url(path: string): string;
  deliveries: Delivery[];
  /** Waits (bounded) until `count` deliveries to `path` have arrived, and returns them. */
  received(path: string, count: number, timeoutMs?: number): Promise<Delivery[]>;
  stop(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that records every request; `answer` decides each reply (default 200). */
export async function startWebhookReceiver(
  answer: (delivery: Delivery, index: number) => Answer = () => ({ status: 200 }),
): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks) };
      const index = deliveries.filter((earlier) => earlier.path === delivery.path).length;
      deliveries.push(delivery);
      const { status, headers } = answer(delivery, index);
      response.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const at = (path: string) => deliveries.filter((delivery) => delivery.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    deliveries,
    async received(path, count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (at(path).length < count) {
        if (Date.now() > deadline) throw new Error(`${at(path).length} of ${count} deliveries to ${path} arrived`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return at(path);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * What a receiver does (docs/batch.md, "Verifying a webhook"): HMAC-SHA256 under the secret's key bytes over
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, compared in constant time with each `v1,<base64>` signature.
 */
export function verifies(secret: string, delivery: Delivery): boolean {
  const id = delivery.headers['webhook-id'];
  const timestamp = delivery.headers['webhook-timestamp'];
  const signatures = delivery.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(delivery.body).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
