import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';

const AUTH_REQUIRED = {
  error_code: '111',
  error_type: 'auth',
  error_message: 'Authorization is required.',
  error_details: {},
};

describe('API keys, scopes and quotas', () => {
  let t: TestApp;
  let admin: ReturnType<typeof client>;

  const createKey = async (body: Record<string, unknown>) => {
    const res = await admin.post('/v1/keys', body);
    expect(res.status).toBe(200);
    return res.body.data as { id: number; key: string; prefix: string; account: string; scopes: string[] };
  };

  beforeAll(async () => {
    t = await startTestApp();
    admin = client(t.url, t.adminKey);
  });
  afterAll(() => t.close());

  it('answers a request without a key with 401 "111"', async () => {
    const res = await call(t.url, 'GET', '/v1/keys');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(AUTH_REQUIRED);
    const empty = await call(t.url, 'GET', '/v1/keys', { headers: { authorization: '' } });
    expect(empty.status).toBe(401);
    expect(empty.body).toEqual(AUTH_REQUIRED);
  });

  it('answers an unknown key with 401 "111"', async () => {
    const res = await call(t.url, 'GET', '/v1/keys', {
      headers: { authorization: 'Bearer sk_unknown_0000000000000000000000000000' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ...AUTH_REQUIRED, error_message: 'The API key is unknown or revoked.' });
  });

  it('answers a header without the Bearer scheme with 401 "111" that says how to send the key', async () => {
    for (const authorization of [t.adminKey, 'Basic dXNlcjpwYXNz', 'Bearer', `Token ${t.adminKey}`]) {
      const res = await call(t.url, 'GET', '/v1/keys', { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        ...AUTH_REQUIRED,
        error_message: 'Send the API key as "Authorization: Bearer <key>".',
      });
      expect(res.text).not.toContain(t.adminKey);
    }
  });

  it('accepts the bearer scheme in any case', async () => {
    const res = await call(t.url, 'GET', '/v1/keys', { headers: { authorization: `bEaReR ${t.adminKey}` } });
    expect(res.status).toBe(200);
  });

  it('creates a key shown once, prefixed, with 32+ bytes of entropy, and lists it without the secret', async () => {
    const created = await createKey({ name: 'pipeline', scopes: ['image_editing', 'storage'] });
    expect(created.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created).toMatchObject({
      name: 'pipeline',
      account: 'default',
      scopes: ['image_editing', 'storage'],
      revoked: false,
      quota: null,
      calls_used: 0,
    });

    const list = await admin.get('/v1/keys');
    const listed = list.body.data.find((key: { id: number }) => key.id === created.id);
    expect(listed).toMatchObject({ name: 'pipeline', prefix: created.prefix });
    expect(listed).not.toHaveProperty('key');
    expect(list.text).not.toContain(created.key);
  });

  it('stores keys only as hashes: no key appears in clear in the keys table', async () => {
    const created = await createKey({ name: 'hashed', scopes: ['storage'] });
    const dataSource = t.app.get<DataSource>(getDataSourceToken());
    const rows: Record<string, unknown>[] = await dataSource.query('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(created.key);
    expect(dump).not.toContain(created.key.slice(12));
    expect(rows.some((row) => typeof row.key_hash === 'string' && /^[0-9a-f]{64}$/.test(row.key_hash))).toBe(true);
  });

  it('answers 403 when the key lacks the scope, and admin scope reaches everything', async () => {
    const storageOnly = await createKey({ name: 'storage only', scopes: ['storage'] });
    const res = await call(t.url, 'GET', '/v1/keys', { key: storageOnly.key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error_code: '113', error_type: 'auth' });
    expect(res.body.error_message).toContain('admin');
  });

  it('revokes a key: it gets 401 at once, and revoking again is idempotent', async () => {
    const victim = await createKey({ name: 'to revoke', scopes: ['admin'] });
    expect((await call(t.url, 'GET', '/v1/keys', { key: victim.key })).status).toBe(200);
    const revoked = await admin.delete(`/v1/keys/${victim.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: victim.id, revoked: true });
    const after = await call(t.url, 'GET', '/v1/keys', { key: victim.key });
    expect(after.status).toBe(401);
    expect(after.body.error_code).toBe('111');
    expect((await admin.delete(`/v1/keys/${victim.id}`)).status).toBe(200);
  });

  it('applies a change of scopes at once, though the key was just used', async () => {
    const changing = await createKey({ name: 'losing admin', scopes: ['admin'] });
    expect((await call(t.url, 'GET', '/v1/keys', { key: changing.key })).status).toBe(200);
    expect((await admin.patch(`/v1/keys/${changing.id}`, { scopes: ['storage'] })).status).toBe(200);
    const after = await call(t.url, 'GET', '/v1/keys', { key: changing.key });
    expect(after.status).toBe(403);
    expect(after.body.error_code).toBe('113');
  });

  it('sees a key revoked by another process within LOOKUP_CACHE_MS (1 s by default)', async () => {
    const victim = await createKey({ name: 'revoked elsewhere', scopes: ['admin'] });
    expect((await call(t.url, 'GET', '/v1/keys', { key: victim.key })).status).toBe(200);
    // Another process (a replica, the CLI on the database) revokes it: this process only sees the row change.
    const dataSource = t.app.get<DataSource>(getDataSourceToken());
    await dataSource.getRepository('ApiKeyEntity').update({ id: victim.id }, { revoked: true });
    const revokedAt = Date.now();
    let status = 200;
    for (let i = 0; i < 40 && status === 200; i++) {
      status = (await call(t.url, 'GET', '/v1/keys', { key: victim.key })).status;
      if (status === 200) await new Promise((done) => setTimeout(done, 100));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1000 + 1500); // the TTL, and slack for a busy machine
  });

  it('answers 404 for an unknown key id', async () => {
    const res = await admin.delete('/v1/keys/987654');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error_code: '1201',
      error_type: 'user',
      error_message: 'API key not found.',
      error_details: {},
    });
  });

  it('answers 402 once the key quota is spent, and counts only admitted calls', async () => {
    const limited = await createKey({ name: 'three calls', scopes: ['admin'], quota: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(t.url, 'GET', '/v1/keys', { key: limited.key })).status);
    expect(statuses).toEqual([200, 200, 200, 402, 402]);
    const refused = await call(t.url, 'GET', '/v1/keys', { key: limited.key });
    expect(refused.body).toEqual({
      error_code: '1101',
      error_type: 'billing',
      error_message: 'No API calls left for this API key.',
      error_details: {},
    });
    const listed = (await admin.get('/v1/keys')).body.data.find((key: { id: number }) => key.id === limited.id);
    expect(listed.calls_used).toBe(3);
  });

  it('counts the calls of a key without a quota too (the quota is the limit, not the counter)', async () => {
    const unlimited = await createKey({ name: 'no quota', scopes: ['admin'] });
    for (let i = 0; i < 4; i++) expect((await call(t.url, 'GET', '/v1/keys', { key: unlimited.key })).status).toBe(200);
    const listed = (await admin.get('/v1/keys')).body.data.find((key: { id: number }) => key.id === unlimited.id);
    expect(listed).toMatchObject({ quota: null, calls_used: 4 });
  });

  it('keeps accounts apart: an account admin sees and revokes only its own keys', async () => {
    const acme = await createKey({ name: 'acme admin', scopes: ['admin'], account: 'acme' });
    expect(acme.account).toBe('acme');
    const acmeClient = client(t.url, acme.key);
    const acmeWorker = await acmeClient.post('/v1/keys', { name: 'acme worker', scopes: ['image_editing'] });
    expect(acmeWorker.status).toBe(200);
    expect(acmeWorker.body.data.account).toBe('acme');

    const acmeList = await acmeClient.get('/v1/keys');
    expect(acmeList.body.data.map((key: { account: string }) => key.account)).toEqual(['acme', 'acme']);

    const defaultKey = await createKey({ name: 'default side', scopes: ['storage'] });
    const crossRevoke = await acmeClient.delete(`/v1/keys/${defaultKey.id}`);
    expect(crossRevoke.status).toBe(404);
    expect((await acmeClient.get('/v1/keys?account=default')).status).toBe(403);
    expect((await acmeClient.post('/v1/keys', { name: 'x', scopes: ['admin'], account: 'default' })).status).toBe(403);

    const operatorView = await admin.get('/v1/keys?account=acme');
    expect(operatorView.body.data.map((key: { name: string }) => key.name)).toEqual(['acme admin', 'acme worker']);
    const defaultView = await admin.get('/v1/keys');
    expect(defaultView.body.data.every((key: { account: string }) => key.account === 'default')).toBe(true);
  });

  it('answers every /v1 route under /v1-beta1 too', async () => {
    const res = await call(t.url, 'GET', '/v1-beta1/keys', { key: t.adminKey });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    const unauthenticated = await call(t.url, 'GET', '/v1-beta1/keys');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toEqual(AUTH_REQUIRED);
    const created = await call(t.url, 'POST', '/v1-beta1/keys', {
      key: t.adminKey,
      body: { name: 'beta', scopes: ['storage'] },
    });
    expect(created.status).toBe(200);
    expect(created.body.data.key).toMatch(/^sk_/);
  });

  it('never writes a key to the logs', async () => {
    const created = await createKey({ name: 'log probe', scopes: ['storage'] });
    await call(t.url, 'GET', '/v1/keys', { key: created.key });
    await call(t.url, 'GET', '/v1/keys', { key: 'sk_wrong_secret_value_1234567890abcdef' });
    const logs = t.logs.join('\n');
    expect(t.logs.length).toBeGreaterThan(5);
    expect(logs).not.toContain(created.key);
    expect(logs).not.toContain(t.adminKey);
    expect(logs).not.toContain('sk_wrong_secret_value_1234567890abcdef');
    expect(t.logs.every((line) => typeof JSON.parse(line).level === 'string')).toBe(true);
  });
});
