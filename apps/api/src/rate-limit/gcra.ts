/**
 * The generic cell rate algorithm (GCRA), a token bucket kept as one number per bucket: its theoretical
 * arrival time (TAT), the moment the bucket would be full again. A bucket of `limit` per `window` holds
 * `limit` requests and refills one every `window / limit`, so a client gets at most `limit` at once and
 * `limit + d / interval` over any span `d`: no edge where two windows' allowances meet. Times are integer
 * microseconds, which Redis's TIME gives and a Lua double holds exactly.
 */

/** One limit on a client: at most `limit` requests at once, refilled evenly over `windowMs`. */
export interface Bucket {
  /** Identifies the client and the limit, e.g. `key-12:s`. */
  id: string;
  limit: number;
  windowMs: number;
}

/**
 * `take`: admit and count the request when every bucket has room. `peek`: only say whether it would be
 * admitted. `add`: count it whatever the buckets hold (a failure already answered).
 */
export type TakeMode = 'take' | 'peek' | 'add';

export interface BucketState {
  /** Requests the bucket would still admit now. */
  remaining: number;
  /** Until the bucket is full again, in milliseconds. */
  resetMs: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Until the request would be admitted, in milliseconds; 0 when it was. */
  retryAfterMs: number;
  /** In the order of the buckets asked for. */
  buckets: BucketState[];
}

export interface Evaluation {
  result: TakeResult;
  /** Whether the new TATs are to be stored. */
  commit: boolean;
  /** Each bucket's TAT after this request, in microseconds. */
  tats: number[];
}

/** Whole seconds for `Retry-After` and `RateLimit-Reset`, at least 1 (0 would invite an immediate retry). */
export function headerSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Microseconds between two refills; floored, so rounding never admits fewer than `limit` at once. */
export function intervalUs(bucket: Bucket): number {
  return Math.max(1, Math.floor((bucket.windowMs * 1000) / bucket.limit));
}

/**
 * Decides one request from the buckets' stored TATs (undefined: never used or expired). Pure: the memory
 * store applies it directly; the Redis script makes the same decision atomically and returns its inputs, so
 * that this function describes the result.
 */
export function evaluate(nowUs: number, stored: (number | undefined)[], buckets: readonly Bucket[], mode: TakeMode) {
  const steps = buckets.map((bucket, i) => {
    const interval = intervalUs(bucket);
    const tat = Math.max(stored[i] ?? nowUs, nowUs);
    const next = tat + interval;
    return { bucket, interval, tat, next, fits: next - nowUs <= bucket.windowMs * 1000 };
  });
  const allowed = steps.every((step) => step.fits);
  const commit = mode === 'add' || (mode === 'take' && allowed);
  const tats = steps.map((step) => (commit ? step.next : step.tat));
  const waitUs = Math.max(0, ...steps.map((step) => (step.fits ? 0 : step.next - step.bucket.windowMs * 1000 - nowUs)));
  const evaluation: Evaluation = {
    commit,
    tats,
    result: {
      allowed,
      retryAfterMs: Math.ceil(waitUs / 1000),
      buckets: steps.map((step, i) => ({
        remaining: Math.max(0, Math.floor((step.bucket.windowMs * 1000 - (tats[i] - nowUs)) / step.interval)),
        resetMs: Math.ceil((tats[i] - nowUs) / 1000),
      })),
    },
  };
  return evaluation;
}
