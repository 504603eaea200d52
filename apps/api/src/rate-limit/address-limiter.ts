import { Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppConfig, ServiceException, type ErrorCodeName } from '@app/common';
import { headerSeconds } from './gcra';
import { RateLimitStore, type Bucket, type TakeResult } from './rate-limit.store';

/**
 * The client address a budget is kept for: the IPv4 address (IPv4-mapped IPv6 included), or the /64 of an IPv6
 * one, since a single host commonly holds a whole /64. `ip` is Fastify's `request.ip`, which follows
 * X-Forwarded-For only with TRUST_PROXY.
 */
export function clientAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/**
 * Budgets per client address, checked before authentication (http/request-gate.ts) and kept in the rate-limit
 * store (GCRA buckets; Redis when configured, so every instance shares them): requests per second and per
 * minute, and requests answered 401 or 403 per minute. A limit of 0 turns its budget off.
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

  /** Before a key is looked up: 429 `AUTH_FAILURES_LIMITED` while the address has no failure left. */
  async admitAuthentication(address: string): Promise<void> {
    const bucket = this.failureBucket(address);
    if (!bucket) return;
    const result = await this.store.take([bucket], 'peek');
    if (!result.allowed) throw refusal('AUTH_FAILURES_LIMITED', result);
  }

  /** A request of the address was answered 401 or 403. */
  async recordFailure(address: string): Promise<void> {
    const bucket = this.failureBucket(address);
    if (bucket) await this.store.take([bucket], 'add');
  }

  private failureBucket(address: string): Bucket | undefined {
    const limit = this.config.authFailureLimitPerMinute;
    return limit > 0 ? { id: `authfail-${address}`, limit, windowMs: 60_000 } : undefined;
  }
}

function refusal(code: ErrorCodeName, result: TakeResult): ServiceException {
  return new ServiceException(code, undefined, {}, { 'retry-after': String(headerSeconds(result.retryAfterMs)) });
}
