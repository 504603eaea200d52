import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from './rate-limit.store';

describe('MemoryRateLimitStore', () => {
  it('counts per key in fixed one-second and one-minute windows', async () => {
    let now = 1_700_000_000_250; // 250 ms into a second, 20.25 s into a minute
    const store = new MemoryRateLimitStore(() => now);
    expect(await store.hit('a')).toEqual({ second: 1, minute: 1, msLeftInSecond: 750, msLeftInMinute: 39_750 });
    expect((await store.hit('a')).second).toBe(2);
    expect((await store.hit('b')).second).toBe(1);
    now += 800; // next second, same minute
    expect(await store.hit('a')).toMatchObject({ second: 1, minute: 3 });
    now += 60_000; // next minute
    expect(await store.hit('a')).toMatchObject({ second: 1, minute: 1 });
  });
});
