import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';

describe('error bodies', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startTestApp({ MAX_JSON_BODY_BYTES: '2048' });
    api = client(t.url, t.adminKey);
  });
  afterAll(() => t.close());

  it('answers unparsable JSON with 400 and the Error object', async () => {
    const res = await api.send('POST', '/v1/keys', { rawBody: '{"name": "x",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error_code: '9001',
      error_type: 'validation',
      error_message: 'The request body is not valid JSON.',
      error_details: {},
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'text/xml', 'application/octet-stream'])(
    'answers a %s body on a JSON route with 415',
    async (type) => {
      const res = await api.send('POST', '/v1/keys', {
        rawBody: 'name=x&scopes=storage',
        headers: { 'content-type': type },
      });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({
        error_code: '9005',
        error_type: 'general',
        error_message: 'Unsupported content type; send application/json.',
        error_details: {},
      });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    },
  );

  it('answers a malformed URL with 400 and the Error object', async () => {
    const res = await call(t.url, 'GET', '/v1/keys/%E0%A4%A', { headers: { 'x-request-id': 'bad-url-1' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error_code: '9006',
      error_type: 'general',
      error_message: 'The request URL is malformed.',
      error_details: {},
    });
    expect(res.headers.get('x-request-id')).toBe('bad-url-1');
  });

  it('answers an unknown route with 404', async () => {
    const res = await api.get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error_code: '9002',
      error_type: 'general',
      error_message: 'Route not found.',
      error_details: {},
    });
  });

  it('answers a known path with an unknown method with 405 and Allow', async () => {
    const res = await api.send('PUT', '/v1/keys');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(res.body).toMatchObject({ error_code: '9003', error_type: 'general' });
    expect(res.body.error_message).toContain('PUT');
    const onId = await api.send('PUT', '/v1/keys/12');
    expect(onId.status).toBe(405);
    expect(onId.headers.get('allow')).toBe('DELETE, PATCH');
  });

  it('answers an oversized body with 413', async () => {
    const res = await api.post('/v1/keys', { name: 'x'.repeat(4096), scopes: ['storage'] });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error_code: '9004',
      error_type: 'general',
      error_message: 'The request body is too large.',
      error_details: {},
    });
  });

  it('answers a body that breaks the schema with 422 and dotted field paths', async () => {
    const res = await api.post('/v1/keys', { name: '', scopes: ['storage', 'root'], rate_limit: { per_second: 0 } });
    expect(res.status).toBe(422);
    expect(res.body.error_code).toBe('9000');
    expect(res.body.error_type).toBe('validation');
    expect(Object.keys(res.body.error_details).sort()).toEqual(['name', 'rate_limit.per_second', 'scopes']);
    expect(res.body.error_details['rate_limit.per_second']).toEqual(['per_second must not be less than 1']);
    expect(res.body.error_message).toContain('rate_limit.per_second must not be less than 1.');
  });

  it('refuses unknown members at every level with 422', async () => {
    const res = await api.post('/v1/keys', {
      name: 'ok',
      scopes: ['storage'],
      colour: 'red',
      rate_limit: { per_second: 2, burst: 9 },
    });
    expect(res.status).toBe(422);
    expect(res.body.error_details).toEqual({
      colour: ['unknown member; no other members are allowed'],
      'rate_limit.burst': ['unknown member; no other members are allowed'],
    });
  });

  it('refuses query parameters named after Object.prototype members as unknown', async () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
      const res = await api.get(`/v1/keys?${name}=1`);
      expect(res.status, `${name}: ${res.text}`).toBe(422);
      expect(res.body.error_details).toEqual({ [name]: ['unknown member; no other members are allowed'] });
    }
  });

  it('refuses a JSON body that is not an object with 422', async () => {
    const res = await api.send('POST', '/v1/keys', { rawBody: '[1,2]' });
    expect(res.status).toBe(422);
    expect(res.body.error_details).toEqual({ body: ['must be a JSON object'] });
  });

  it('answers a non-integer path id with 422', async () => {
    const res = await api.delete('/v1/keys/abc');
    expect(res.status).toBe(422);
    expect(res.body.error_details).toEqual({ id: ['id must be an integer from 1 to 2147483647'] });
  });

  // Ids are 32-bit in PostgreSQL: a larger one reached the database as a query it refused (500).
  it.each([
    ['GET', '/v1/storage/storages/99999999999', 'storage_id'],
    ['PATCH', '/v1/storage/storages/2147483648', 'storage_id'],
    ['DELETE', '/v1/keys/999999999999999', 'id'],
    ['GET', '/v1/image/edit/batch/2147483648', 'task_id'],
    ['GET', '/v1/image/edit/async/99999999999', 'task_id'],
  ])('answers %s %s, an id past 2^31-1, with 422', async (method, path, name) => {
    const res = await api.send(method, path, method === 'PATCH' ? { body: { name: 'x' } } : {});
    expect(res.status, res.text).toBe(422);
    expect(res.body.error_details).toEqual({ [name]: [`${name} must be an integer from 1 to 2147483647`] });
  });

  it('looks up the largest id there can be', async () => {
    const res = await api.get('/v1/storage/storages/2147483647');
    expect(res.status).toBe(404);
    expect(res.body.error_code).toBe('1301');
  });

  it('wraps success bodies in the data envelope', async () => {
    const res = await api.get('/v1/keys');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Array.isArray(res.body.data)).toBe(true);
  });

  it('puts x-request-id on every response, echoing a sane one and replacing a hostile one', async () => {
    const echoed = await call(t.url, 'GET', '/health/live', { headers: { 'x-request-id': 'trace-42.a:b' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-42.a:b');
    const generated = await call(t.url, 'GET', '/v1/keys');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await call(t.url, 'GET', '/health/live', { headers: { 'x-request-id': 'a b<script>' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await call(t.url, 'GET', '/nope', { headers: { 'x-request-id': 'r-404' } });
    expect(missing.headers.get('x-request-id')).toBe('r-404');
  });

  it('answers an internal failure with 500, the request id and nothing internal', async () => {
    const dataSource = t.app.get<DataSource>(getDataSourceToken());
    await dataSource.query('ALTER TABLE api_keys RENAME TO api_keys_moved');
    try {
      const res = await call(t.url, 'GET', '/v1/keys', {
        key: 'sk_not_a_real_key',
        headers: { 'x-request-id': 'req-500' },
      });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error_code: '9500',
        error_type: 'runtime_settings',
        error_message: 'Internal error. Quote request id req-500 when reporting it.',
        error_details: { request_id: 'req-500' },
      });
      expect(res.text).not.toMatch(/api_keys|SELECT|stack|at /i);
      const logged = t.logs
        .map((line) => JSON.parse(line))
        .find((line) => line.request_id === 'req-500' && line.level === 'error');
      // The class, the driver's code and the frames; never the message, which can quote request values.
      expect(logged?.err).toMatchObject({ type: 'QueryFailedError', code: expect.any(String) });
      expect(logged?.err?.stack).toMatch(/^QueryFailedError\n {4}at /);
      expect(JSON.stringify(logged)).not.toMatch(/api_keys|SELECT/);
    } finally {
      await dataSource.query('ALTER TABLE api_keys_moved RENAME TO api_keys');
    }
  });
});
