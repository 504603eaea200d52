import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisUrl } from './helpers/databases';
import { call, client } from './helpers/http';
import { startApiProcess, type RunningApi } from './helpers/process';
import { scratchEnvironment, startTestApp, type TestApp } from './helpers/test-app';

/** Waits until the clock is 0-50 ms past `ms` milliseconds into a second. */
async function atMsIntoSecond(ms: number): Promise<void> {
  for (;;) {
    const into = Date.now() % 1000;
    if (into >= ms && into < ms + 50) return;
    await new Promise((done) => setTimeout(done, (ms - into + 1000) % 1000 || 1));
  }
}

describe('rate limits per API key', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '4', RATE_LIMIT_PER_MINUTE: '120' });
  });
  afterAll(() => t.close());

  const newKey = async (body: Record<string, unknown> = {}) => {
    const res = await call(t.url, 'POST', '/v1/keys', {
      key: t.adminKey,
      body: { name: 'rl', scopes: ['admin'], ...body },
    });
    expect(res.status).toBe(200);
    return res.body.data.key as string;
  };

  it('sends the contract headers on every authenticated response', async () => {
    const key = await newKey();
    const res = await call(t.url, 'GET', '/v1/keys', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('120, 120;w=60, 4;w=1');
    expect(res.headers.get('ratelimit-remaining')).toBe('3');
    expect(res.headers.get('ratelimit-reset')).toBe('1');
  });

  it('answers the fifth call within a second with 429 wrapped in detail', async () => {
    const key = await newKey();
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 8 }, () => call(t.url, 'GET', '/v1/keys', { key })));
    const span = Date.now() - started;
    const admitted = responses.filter((r) => r.status === 200).length;
    // 4 at once; one more per 250 ms the burst took on a slow machine.
    expect(admitted).toBeGreaterThanOrEqual(4);
    expect(admitted).toBeLessThanOrEqual(Math.min(7, 4 + Math.floor(span / 250)));
    expect(responses.filter((r) => r.status === 429)).toHaveLength(8 - admitted);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.body).toEqual({
      detail: {
        error_code: '2001',
        error_type: 'general',
        error_message: 'Too Many Requests. Rate limit exceeded.',
        error_details: {},
      },
    });
    expect(refused.headers.get('ratelimit-remaining')).toBe('-1');
    expect(refused.headers.get('ratelimit-reset')).toBe('1');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-request-id')).toBeTruthy();

    await new Promise((done) => setTimeout(done, 1100));
    expect((await call(t.url, 'GET', '/v1/keys', { key })).status).toBe(200);
  });

  it('applies a per-key override of the minute window', async () => {
    const key = await newKey({ rate_limit: { per_minute: 3 } });
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await call(t.url, 'GET', '/v1/keys', { key });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.headers.get('ratelimit-limit')).toBe('3, 3;w=60, 4;w=1');
    expect(Number(last!.headers.get('ratelimit-reset'))).toBeGreaterThan(1);
  });

  it('counts keys separately', async () => {
    const first = await newKey({ rate_limit: { per_minute: 1 } });
    const second = await newKey({ rate_limit: { per_minute: 1 } });
    expect((await call(t.url, 'GET', '/v1/keys', { key: first })).status).toBe(200);
    expect((await call(t.url, 'GET', '/v1/keys', { key: first })).status).toBe(429);
    expect((await call(t.url, 'GET', '/v1/keys', { key: second })).status).toBe(200);
  });

  it('admits no burst above the limit across a second boundary (memory, or Redis with REDIS_URL)', async () => {
    const key = await newKey({ rate_limit: { per_second: 2 } });
    // A flood from 300 ms before a second begins to 300 ms after: fixed windows admitted 2 before and 2 after.
    await atMsIntoSecond(700);
    const started = Date.now();
    let admitted = 0;
    const flood = async () => {
      while (Date.now() - started < 600) {
        if ((await call(t.url, 'GET', '/v1/keys', { key })).status === 200) admitted++;
      }
    };
    await Promise.all([flood(), flood()]);
    const span = Date.now() - started;
    expect(admitted).toBeGreaterThanOrEqual(2);
    // At 2 per second: 2 at once, then one per 500 ms, in any span the server saw (shorter than this one).
    expect(admitted).toBeLessThanOrEqual(2 + Math.floor(span / 500));
  });

  it('does not limit the public health routes', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () => call(t.url, 'GET', '/health/live').then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});

describe.runIf(testRedisUrl)('rate limits shared through Redis by two API processes', () => {
  let a: RunningApi;
  let b: RunningApi;
  let cleanup: () => Promise<void>;
  let adminKey: string;

  beforeAll(async () => {
    const scratch = await scratchEnvironment({
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    cleanup = scratch.cleanup;
    adminKey = scratch.env.ADMIN_API_KEY!;
    a = await startApiProcess(scratch.env);
    b = await startApiProcess(scratch.env);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await cleanup?.();
  });

  it('enforces one combined per-key limit across both processes', async () => {
    const created = await client(a.url, adminKey).post('/v1/keys', {
      name: 'shared',
      scopes: ['admin'],
      rate_limit: { per_minute: 10 },
    });
    expect(created.status).toBe(200);
    const key = created.body.data.key as string;
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const target = i % 2 === 0 ? a.url : b.url;
      statuses.push((await call(target, 'GET', '/v1/keys', { key })).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
    const remaining = await call(b.url, 'GET', '/v1/keys', { key });
    expect(remaining.headers.get('ratelimit-remaining')).toBe('-1');
  });
});
