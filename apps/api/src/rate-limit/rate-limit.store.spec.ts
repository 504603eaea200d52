import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, type Bucket } from './rate-limit.store';

const perSecond = (limit: number, id = 'k'): Bucket => ({ id: `${id}:s`, limit, windowMs: 1000 });
const perMinute = (limit: number, id = 'k'): Bucket => ({ id: `${id}:m`, limit, windowMs: 60_000 });

/** A store on a clock the test moves, and the times at which a flood of requests was admitted. */
async function flood(buckets: Bucket[], from: number, to: number, everyMs: number): Promise<number[]> {
  let now = from;
  const store = new MemoryRateLimitStore(() => now);
  const admitted: number[] = [];
  for (; now <= to; now += everyMs) if ((await store.take(buckets)).allowed) admitted.push(now);
  return admitted;
}

describe('MemoryRateLimitStore (GCRA)', () => {
  it('admits 4, not 8, to a flood across a second boundary at 4 per second', async () => {
    // Fixed windows admitted 4 in 0.900-0.999 s and 4 more from 1.000 s: 8 within milliseconds.
    const admitted = await flood([perSecond(4)], 900, 1100, 1);
    expect(admitted).toEqual([900, 901, 902, 903]);
  });

  it('admits 124, not 240, in the two seconds around a minute boundary at 120 per minute', async () => {
    const admitted = await flood([perMinute(120)], 59_000, 61_000, 5);
    expect(admitted).toHaveLength(120 + 4);
    // After the burst, one request per 500 ms: the limit spread evenly over the window.
    expect(admitted.filter((at) => at >= 60_000)).toEqual([60_000, 60_500, 61_000]);
  });

  it('never admits more than the limit plus one per interval, whatever the span', async () => {
    const admitted = await flood([perSecond(4)], 0, 10_000, 1);
    for (let i = 0; i < admitted.length; i++) {
      for (let j = i; j < admitted.length; j++) {
        expect(j - i + 1).toBeLessThanOrEqual(4 + Math.floor((admitted[j] - admitted[i]) / 250));
      }
    }
    expect(admitted).toHaveLength(4 + 40);
  });

  it('admits only when every bucket has room, and a refusal takes nothing from any', async () => {
    let now = 1_700_000_000_000;
    const store = new MemoryRateLimitStore(() => now);
    const buckets = [perSecond(4), perMinute(5)];
    expect(await store.take(buckets)).toEqual({
      allowed: true,
      retryAfterMs: 0,
      buckets: [
        { remaining: 3, resetMs: 250 },
        { remaining: 4, resetMs: 12_000 },
      ],
    });
    for (let i = 0; i < 3; i++) expect((await store.take(buckets)).allowed).toBe(true);
    const refused = await store.take(buckets);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 250 });
    now += 250;
    expect(await store.take(buckets)).toMatchObject({ allowed: true, buckets: [{ remaining: 0 }, { remaining: 0 }] });
    const minuteSpent = await store.take(buckets);
    expect(minuteSpent.allowed).toBe(false);
    expect(minuteSpent.retryAfterMs).toBe(12_000 - 250);
    expect((await store.take([perSecond(4, 'other')])).allowed).toBe(true);
  });

  it('peeks without taking, and adds even past the limit', async () => {
    const now = 5_000;
    const store = new MemoryRateLimitStore(() => now);
    const bucket = [perMinute(2, 'failures')];
    expect((await store.take(bucket, 'peek')).allowed).toBe(true);
    await store.take(bucket, 'add');
    await store.take(bucket, 'add');
    expect((await store.take(bucket, 'peek')).allowed).toBe(false);
    await store.take(bucket, 'add');
    expect(await store.take(bucket, 'peek')).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
  });
});
