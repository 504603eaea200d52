import { Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppConfig, ServiceException, type ErrorCodeName } from '@app/common';
import { headerSeconds } from './gcra';
import { RateLimitStore, type Bucket, type TakeResult } from './rate-limit.store';

/**
 * The client address a budget is kept for: the IPv4 address (IPv4-mapped IPv6 included), or the /64 of an IPv6
 * one, since a single host commonly holds a whole /64. `ip` is Fastify's `request.ip`, which follows
 * X-Forwarded-For only with TRUST_PROXY; every forwarded value that is not an address shares the one budget
 * `invalid`, so that a client cannot make itself a fresh budget per request by writing anything there.
 */
export function clientAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return 'invalid';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/** The key a request presented, as its client is judged by the failure budgets (http/request-gate.ts). */
export interface PresentedKey {
  /** SHA-256 of the key (hex): its failures are counted under it, never under the secret. */
  hash: string;
  /** Answered valid by this process within the last minutes: its address's failures do not hold it. */
  recentlyValid: boolean;
}

/**
 * Budgets per client address, checked before authentication (http/request-gate.ts) and kept in the rate-limit
 * store (GCRA buckets; Redis when configured, so every instance shares them): requests per second and per
 * minute, and requests answered 401 or 403 per minute, counted per address and per presented key. A limit of 0
 * turns its budget off.
 */
@Injectable()
export class AddressLimiter {
  constructor(
    private readonly config: AppConfig,
    private readonly store: RateLimitStore,
  ) {}

  /** Counts a request of the address: 429 `ADDRESS_RATE_LIMITED` over its budget. */
  async admitRequest(address: string): Promise<void> {
    const buckets: Bucket[] = [
      { id: `addr-${address}:s`, limit: this.config.addressRateLimitPerSecond, windowMs: 1000 },
      { id: `addr-${address}:m`, limit: this.config.addressRateLimitPerMinute, windowMs: 60_000 },
    ].filter((bucket) => bucket.limit > 0);
    if (buckets.length === 0) return;
    const result = await this.store.take(buckets);
    if (!result.allowed) throw refusal('ADDRESS_RATE_LIMITED', result);
  }

  /**
   * Before a key is looked up: 429 `AUTH_FAILURES_LIMITED` while the presented key, or the address, has no
   * failure left. A key recently seen valid is held by its own failures only: 30 bad keys a minute from a shared
   * NAT (or from every client, behind a proxy without TRUST_PROXY) do not lock out the valid clients there.
   */
  async admitAuthentication(address: string, key: PresentedKey | undefined): Promise<void> {
    const limit = this.config.authFailureLimitPerMinute;
    if (limit === 0) return;
    if (!key?.recentlyValid) {
      const result = await this.store.take([this.failureBucket(address, limit)], 'peek');
      if (!result.allowed) throw refusal('AUTH_FAILURES_LIMITED', result);
    }
    if (key) {
      const result = await this.store.take([this.failureBucket(`key-${key.hash}`, limit)], 'peek');
      if (!result.allowed) throw refusal('AUTH_FAILURES_LIMITED', result, KEY_REFUSAL);
    }
  }

  /** A request of the address, with the key it presented if any, was answered 401 or 403. */
  async recordFailure(address: string, keyHash: string | undefined): Promise<void> {
    const limit = this.config.authFailureLimitPerMinute;
    if (limit === 0) return;
    const buckets = [this.failureBucket(address, limit)];
    if (keyHash !== undefined) buckets.push(this.failureBucket(`key-${keyHash}`, limit));
    await this.store.take(buckets, 'add');
  }

  private failureBucket(client: string, limit: number): Bucket {
    return { id: `authfail-${client}`, limit, windowMs: 60_000 };
  }
}

/** The refusal's message when the presented key, not the address, has no failure left. */
const KEY_REFUSAL = 'Too many failed authentications with this API key. Retry later.';

function refusal(code: ErrorCodeName, result: TakeResult, message?: string): ServiceException {
  return new ServiceException(code, message, {}, { 'retry-after': String(headerSeconds(result.retryAfterMs)) });
}
