import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * The one line each request leaves: what an operator reads to find a request (method, route pattern, status, the
 * Error body's code, duration, key, request id), and nothing a client sent that could be a secret (no path, no
 * query string).
 */
describe('the request log line', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'info' });
  });
  afterAll(() => t.close());

  function completed(requestId: string): Record<string, unknown> {
    const line = t.logs
      .map((text) => JSON.parse(text))
      .find((l) => l.request_id === requestId && l.msg === 'request completed');
    expect(line, requestId).toBeDefined();
    return line;
  }

  it('names method, route pattern, status, error code, duration (ms, one decimal), key and request id', async () => {
    const created = await client(t.url, t.adminKey).post('/v1/keys', { name: 'logged', scopes: ['image_editing'] });
    const key = created.body.data;
    await call(t.url, 'GET', '/v1/image/edit/batch/12345?X-Amz-Signature=s3cr3t-signature', {
      key: key.key,
      headers: { 'x-request-id': 'log-missing-task' },
    });
    const line = completed('log-missing-task');
    expect(line).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/v1/image/edit/batch/:id',
      status: 404,
      error_code: '1701',
      key_id: key.id,
    });
    expect(typeof line.duration_ms).toBe('number');
    expect(String(line.duration_ms)).toMatch(/^\d+(\.\d)?$/);
    const text = t.logs.filter((l) => l.includes('log-missing-task')).join('\n');
    expect(text).not.toContain('s3cr3t-signature');
    expect(text).not.toContain('12345');
  });

  it('has no error code when the answer is not an error, and no key when none was sent', async () => {
    await call(t.url, 'GET', '/health/ready', { headers: { 'x-request-id': 'log-ready' } });
    await call(t.url, 'GET', '/v1/keys', { headers: { 'x-request-id': 'log-no-key' } });
    await call(t.url, 'GET', '/v1/keys', { key: t.adminKey, headers: { 'x-request-id': 'log-listing' } });
    expect(completed('log-no-key')).toMatchObject({
      method: 'GET',
      route: '/v1/keys',
      status: 401,
      error_code: '111',
      key_id: null,
    });
    expect(completed('log-listing')).toMatchObject({ route: '/v1/keys', status: 200, error_code: null });
  });
});
