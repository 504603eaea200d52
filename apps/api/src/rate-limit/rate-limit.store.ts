import type { Provider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig, REDIS, type RedisClient } from '@app/common';
import { evaluate, intervalUs, type Bucket, type TakeMode, type TakeResult } from './gcra';

export type { Bucket, BucketState, TakeMode, TakeResult } from './gcra';

/**
 * Where the buckets' state lives: process memory (embedded) or Redis (shared by every instance). An abstract
 * class so that it can be the injection token.
 */
export abstract class RateLimitStore {
  /** Decides one request against every bucket at once: all admit it, or none counts it. */
  abstract take(buckets: readonly Bucket[], mode?: TakeMode): Promise<TakeResult>;
}

/** Entries beyond which expired buckets are dropped, so that many one-off clients cannot grow the map. */
const MEMORY_PRUNE_AT = 10_000;

/** Buckets in this process's memory; one process only. */
export class MemoryRateLimitStore extends RateLimitStore {
  private readonly tats = new Map<string, number>();

  /** @param now the clock, in milliseconds (tests move it by hand) */
  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  take(buckets: readonly Bucket[], mode: TakeMode = 'take'): Promise<TakeResult> {
    const nowUs = this.now() * 1000;
    const decided = evaluate(
      nowUs,
      buckets.map((bucket) => this.tats.get(bucket.id)),
      buckets,
      mode,
    );
    if (decided.commit) {
      if (this.tats.size > MEMORY_PRUNE_AT) this.prune(nowUs);
      buckets.forEach((bucket, i) => this.tats.set(bucket.id, decided.tats[i]));
    }
    return Promise.resolve(decided.result);
  }

  private prune(nowUs: number): void {
    for (const [id, tat] of this.tats) if (tat <= nowUs) this.tats.delete(id);
  }
}

/**
 * gcra.ts's decision made atomically on the Redis server's clock, so every API instance agrees whatever its
 * own clock says. KEYS: one per bucket. ARGV: mode, then limit and window (microseconds) per bucket. Returns
 * the time and each bucket's TAT before the request (-1: none), from which gcra.ts describes the result; a
 * key expires when its bucket is full again.
 */
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local mode = ARGV[1]
local before, after = {}, {}
local allowed = true
for i = 1, #KEYS do
  local interval = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  local stored = tonumber(redis.call('GET', KEYS[i]) or '-1')
  before[i] = stored
  local tat = math.max(stored, now)
  after[i] = tat + interval
  if after[i] - now > window then allowed = false end
end
if mode == 'add' or (mode == 'take' and allowed) then
  for i = 1, #KEYS do
    redis.call('SET', KEYS[i], string.format('%d', after[i]), 'PX', math.ceil((after[i] - now) / 1000) + 1)
  end
end
local reply = { now }
for i = 1, #KEYS do reply[i + 1] = before[i] end
return reply
`;

export class RedisRateLimitStore extends RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super();
  }

  async take(buckets: readonly Bucket[], mode: TakeMode = 'take'): Promise<TakeResult> {
    const args = buckets.flatMap((bucket) => [intervalUs(bucket), bucket.windowMs * 1000]);
    const keys = buckets.map((bucket) => `${this.prefix}:ratelimit:${bucket.id}`);
    const [nowUs, ...stored] = (await this.redis.eval(TAKE_SCRIPT, keys.length, ...keys, mode, ...args)) as number[];
    return evaluate(
      nowUs,
      stored.map((tat) => (tat < 0 ? undefined : tat)),
      buckets,
      mode,
    ).result;
  }
}

/** Redis when the deployment has it (counters shared by every instance), else this process's memory. */
export const rateLimitStoreProvider: Provider = {
  provide: RateLimitStore,
  inject: [AppConfig, REDIS],
  useFactory: (config: AppConfig, redis: RedisClient) =>
    redis ? new RedisRateLimitStore(redis, config.redisPrefix) : new MemoryRateLimitStore(),
};
