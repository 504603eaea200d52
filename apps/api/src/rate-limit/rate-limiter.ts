import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, REDIS, type RedisClient } from '@app/common';
import type { Principal } from '../auth/principal';
import { MemoryRateLimitStore, RateLimitStore, RedisRateLimitStore } from './rate-limit.store';

export interface RateLimitDecision {
  allowed: boolean;
  headers: { 'RateLimit-Limit': string; 'RateLimit-Remaining': string; 'RateLimit-Reset': string };
  /** Seconds until a refused caller may try again. */
  retryAfter: number;
}

/** Per-key limits over a one-second and a one-minute window, with the contract's headers. */
@Injectable()
export class RateLimiter {
  private readonly store: RateLimitStore;

  constructor(config: AppConfig, @Inject(REDIS) redis: RedisClient) {
    this.store = redis ? new RedisRateLimitStore(redis, config.redisPrefix) : new MemoryRateLimitStore();
  }

  async check(principal: Principal): Promise<RateLimitDecision> {
    const { perSecond, perMinute } = principal.rateLimit;
    const counts = await this.store.hit(principal.keyId === null ? 'config-admin' : `key-${principal.keyId}`);
    const secondLeft = perSecond - counts.second;
    const minuteLeft = perMinute - counts.minute;
    const resetSecond = Math.max(1, Math.ceil(counts.msLeftInSecond / 1000));
    const resetMinute = Math.max(1, Math.ceil(counts.msLeftInMinute / 1000));
    const allowed = secondLeft >= 0 && minuteLeft >= 0;
    let reset: number;
    if (!allowed) reset = minuteLeft < 0 ? resetMinute : resetSecond;
    else reset = minuteLeft <= secondLeft ? resetMinute : resetSecond;
    return {
      allowed,
      retryAfter: reset,
      headers: {
        'RateLimit-Limit': `${perMinute}, ${perMinute};w=60, ${perSecond};w=1`,
        'RateLimit-Remaining': String(allowed ? Math.min(secondLeft, minuteLeft) : -1),
        'RateLimit-Reset': String(reset),
      },
    };
  }
}
