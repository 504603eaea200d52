import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';

interface CreatedKey {
  id: number;
  key: string;
  quota: number | null;
  calls_used: number;
  rate_limit: { per_second: number | null; per_minute: number | null };
}

/** Limits the operator sets bind the account they are given to: its own admin key cannot hand out more. */
describe('limits of keys that an account creates for itself', () => {
  let t: TestApp;
  let operator: ReturnType<typeof client>;

  const operatorKey = async (body: Record<string, unknown>): Promise<CreatedKey> => {
    const res = await operator.post('/v1/keys', { name: 'account admin', scopes: ['admin'], ...body });
    expect(res.status).toBe(200);
    return res.body.data as CreatedKey;
  };
  const listed = async (id: number): Promise<CreatedKey> =>
    (await operator.get('/v1/keys?account=acme')).body.data.find((key: CreatedKey) => key.id === id);

  beforeAll(async () => {
    t = await startTestApp();
    operator = client(t.url, t.adminKey);
  });
  afterAll(() => t.close());

  it('refuses a key without a quota, or with more calls than its creator has left, naming the field', async () => {
    const admin = await operatorKey({ account: 'acme', quota: 10 });
    const acme = client(t.url, admin.key);

    const unlimited = await acme.post('/v1/keys', { name: 'worker', scopes: ['image_editing'] });
    expect(unlimited.status).toBe(403);
    expect(unlimited.body).toMatchObject({ error_code: '114', error_type: 'auth' });
    expect(Object.keys(unlimited.body.error_details)).toEqual(['quota']);

    const tooMany = await acme.post('/v1/keys', { name: 'worker', scopes: ['image_editing'], quota: 50 });
    expect(tooMany.status).toBe(403);
    expect(tooMany.body.error_details.quota[0]).toContain('at most 8');

    // The calls given to the new key are taken from the creator's: the two never spend more than it had.
    const given = await acme.post('/v1/keys', { name: 'worker', scopes: ['image_editing'], quota: 5 });
    expect(given.status).toBe(200);
    expect(given.body.data.quota).toBe(5);
    expect((await listed(admin.id)).calls_used).toBe(3 + 5);
    const again = await acme.post('/v1/keys', { name: 'worker 2', scopes: ['image_editing'], quota: 2 });
    expect(again.status).toBe(403);
    expect(again.body.error_details.quota[0]).toContain('at most 1');
  });

  it("refuses rate limits above its creator's and gives the creator's to a key that names none", async () => {
    const admin = await operatorKey({ account: 'acme', rate_limit: { per_second: 20, per_minute: 30 } });
    const acme = client(t.url, admin.key);

    const faster = await acme.post('/v1/keys', {
      name: 'fast',
      scopes: ['image_editing'],
      rate_limit: { per_second: 21, per_minute: 100 },
    });
    expect(faster.status).toBe(403);
    expect(faster.body.error_details).toEqual({
      'rate_limit.per_second': [expect.stringContaining('at most 20')],
      'rate_limit.per_minute': [expect.stringContaining('at most 30')],
    });

    const inherited = await acme.post('/v1/keys', { name: 'plain', scopes: ['image_editing'] });
    expect(inherited.status).toBe(200);
    expect(inherited.body.data.rate_limit).toEqual({ per_second: 20, per_minute: 30 });
    const slower = await acme.post('/v1/keys', {
      name: 'slow',
      scopes: ['image_editing'],
      rate_limit: { per_second: 1 },
    });
    expect(slower.status).toBe(200);
    expect(slower.body.data.rate_limit).toEqual({ per_second: 1, per_minute: 30 });
  });

  it('counts the requests of every key an account creates against the limits of the key the operator gave it', async () => {
    const admin = await operatorKey({ account: 'acme', rate_limit: { per_second: 1000, per_minute: 6 } });
    const acme = client(t.url, admin.key);
    const first = (await acme.post('/v1/keys', { name: 'one', scopes: ['admin'] })).body.data as CreatedKey;
    const second = (await acme.post('/v1/keys', { name: 'two', scopes: ['admin'] })).body.data as CreatedKey;
    // The admin spent 2 of its 6 calls a minute; more keys do not make more calls.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await call(t.url, 'GET', '/v1/keys', { key: i % 2 ? second.key : first.key })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect((await call(t.url, 'GET', '/v1/keys', { key: admin.key })).status).toBe(429);
  });

  it('lets the operator grant any limits, to any account', async () => {
    const generous = await operatorKey({ account: 'other', quota: 2_000_000_000, rate_limit: { per_second: 5000 } });
    expect(generous).toMatchObject({ quota: 2_000_000_000, rate_limit: { per_second: 5000, per_minute: null } });
    const unlimited = await operatorKey({ account: 'other' });
    expect(unlimited.quota).toBeNull();
  });
});
