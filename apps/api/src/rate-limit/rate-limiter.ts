import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { headerSeconds } from './gcra';
import { RateLimitStore, type Bucket, type TakeResult } from './rate-limit.store';

export interface RateLimitDecision {
  allowed: boolean;
  headers: { 'RateLimit-Limit': string; 'RateLimit-Remaining': string; 'RateLimit-Reset': string };
  /** Seconds until a refused caller may try again. */
  retryAfter: number;
}

/** The per-second and per-minute buckets of a key, under the id its counters are kept by. */
export function keyBuckets(id: string, limits: Principal['rateLimit']): Bucket[] {
  return [
    { id: `${id}:s`, limit: limits.perSecond, windowMs: 1000 },
    { id: `${id}:m`, limit: limits.perMinute, windowMs: 60_000 },
  ];
}

/**
 * Per-key limits (GCRA buckets of one second and one minute, gcra.ts), and those of the key's grant (the
 * operator-made key above a key that an account made itself), with the contract's headers:
 * `RateLimit-Remaining` is what the tighter bucket still admits (-1 when refused), `RateLimit-Reset` the
 * seconds until that bucket is full again (when refused: until the next request is admitted, as Retry-After).
 */
@Injectable()
export class RateLimiter {
  constructor(private readonly store: RateLimitStore) {}

  async check(principal: Principal): Promise<RateLimitDecision> {
    const { perSecond, perMinute } = principal.rateLimit;
    const id = principal.keyId === null ? 'config-admin' : `key-${principal.keyId}`;
    const grant = principal.grant ? keyBuckets(`key-${principal.grant.keyId}`, principal.grant.rateLimit) : [];
    const result = await this.store.take([...keyBuckets(id, principal.rateLimit), ...grant]);
    const retryAfter = headerSeconds(result.retryAfterMs);
    return {
      allowed: result.allowed,
      retryAfter,
      headers: {
        'RateLimit-Limit': `${perMinute}, ${perMinute};w=60, ${perSecond};w=1`,
        'RateLimit-Remaining': String(result.allowed ? Math.min(...result.buckets.map((b) => b.remaining)) : -1),
        'RateLimit-Reset': String(result.allowed ? headerSeconds(tightest(result).resetMs) : retryAfter),
      },
    };
  }
}

/** One bucket as GET /v1/usage shows it. */
export interface BucketUsage {
  limit: number;
  remaining: number;
  reset_seconds: number;
}

/** The buckets' state without counting a request (GCRA's `peek`): what each would still admit now. */
export async function rateLimitState(
  store: RateLimitStore,
  keyId: number | null,
  limits: Principal['rateLimit'],
): Promise<{ per_second: BucketUsage; per_minute: BucketUsage }> {
  const buckets = keyBuckets(keyId === null ? 'config-admin' : `key-${keyId}`, limits);
  const { buckets: state } = await store.take(buckets, 'peek');
  const usage = (index: number): BucketUsage => ({
    limit: buckets[index].limit,
    remaining: state[index].remaining,
    reset_seconds: Math.ceil(state[index].resetMs / 1000),
  });
  return { per_second: usage(0), per_minute: usage(1) };
}

/** The bucket with the fewest requests left; of equals, the one that takes longest to refill. */
function tightest(result: TakeResult) {
  return result.buckets.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetMs > a.resetMs) ? b : a,
  );
}
