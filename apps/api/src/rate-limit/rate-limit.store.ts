import type { Redis } from 'ioredis';

/** Counts of one key in its current one-second and one-minute windows, and time left in each. */
export interface WindowCounts {
  second: number;
  minute: number;
  msLeftInSecond: number;
  msLeftInMinute: number;
}

/** Where per-key counters live: process memory (embedded) or Redis (shared by every instance). */
export interface RateLimitStore {
  hit(id: string): Promise<WindowCounts>;
}

/** Fixed windows in memory; one process only. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly seconds = new Map<string, { window: number; count: number }>();
  private readonly minutes = new Map<string, { window: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  hit(id: string): Promise<WindowCounts> {
    const now = this.now();
    const second = this.bump(this.seconds, id, Math.floor(now / 1000));
    const minute = this.bump(this.minutes, id, Math.floor(now / 60_000));
    return Promise.resolve({
      second,
      minute,
      msLeftInSecond: 1000 - (now % 1000),
      msLeftInMinute: 60_000 - (now % 60_000),
    });
  }

  private bump(map: Map<string, { window: number; count: number }>, id: string, window: number): number {
    const entry = map.get(id);
    if (entry && entry.window === window) return ++entry.count;
    if (map.size > 10_000) {
      for (const [key, value] of map) if (value.window < window) map.delete(key);
    }
    map.set(id, { window, count: 1 });
    return 1;
  }
}

/**
 * Both windows counted in one round trip. Windows follow the Redis server's clock, so every API
 * instance agrees on them whatever its own clock says.
 */
const HIT_SCRIPT = `
local t = redis.call('TIME')
local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = math.floor(ms / 1000)
local m = math.floor(ms / 60000)
local sk = KEYS[1] .. ':s:' .. s
local mk = KEYS[1] .. ':m:' .. m
local sc = redis.call('INCR', sk)
if sc == 1 then redis.call('PEXPIRE', sk, 2000) end
local mc = redis.call('INCR', mk)
if mc == 1 then redis.call('PEXPIRE', mk, 61000) end
return {sc, mc, 1000 - (ms % 1000), 60000 - (ms % 60000)}
`;

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async hit(id: string): Promise<WindowCounts> {
    const [second, minute, msLeftInSecond, msLeftInMinute] = (await this.redis.eval(
      HIT_SCRIPT,
      1,
      `${this.prefix}:ratelimit:${id}`,
    )) as number[];
    return { second, minute, msLeftInSecond, msLeftInMinute };
  }
}
