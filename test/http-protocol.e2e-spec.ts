import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, rawRequest, type RawResponse } from './helpers/raw-http';
import { startTestApp, type TestApp } from './helpers/test-app';

/** What every answer to a request Node's HTTP parser refuses must look like: the Error body, closed. */
function expectErrorAnswer(res: RawResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.connection).toBe('close');
  expect(res.body).toMatchObject({ error_code: code, error_details: {} });
  expect(Object.keys(res.body).sort()).toEqual(['error_code', 'error_details', 'error_message', 'error_type']);
}

describe('requests Node refuses before routing', () => {
  let t: TestApp;
  let host: string;

  beforeAll(async () => {
    // Short timeouts, so that the timeouts can be seen in a test; Node checks them every 25 ms here.
    t = await startTestApp({ HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600', LOG_LEVEL: 'debug' });
    host = new URL(t.url).host;
  });
  afterAll(() => t.close());

  /** The first log line that matches, once the app has written it (within 5 s). */
  async function logLine(matches: (line: any) => boolean): Promise<any> {
    for (const deadline = Date.now() + 5000; Date.now() < deadline;) {
      const found = t.logs.map((line) => JSON.parse(line)).find(matches);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no such log line');
  }

  it('answers Content-Length with Transfer-Encoding with 400', async () => {
    const request = head('POST /v1/keys', {
      host,
      'content-type': 'application/json',
      'content-length': 2,
      'transfer-encoding': 'chunked',
    });
    const res = await rawRequest(t.url, `${request}2\r\n{}\r\n0\r\n\r\n`);
    expectErrorAnswer(res, 400, '9006');
    expect(res.body.error_message).toBe('The request is not valid HTTP/1.1.');
  });

  it('answers a garbage request line with 400', async () => {
    const res = await rawRequest(t.url, 'HELLO\u0001 there\r\n\r\n');
    expectErrorAnswer(res, 400, '9006');
  });

  it('answers oversized headers with 431', async () => {
    const res = await rawRequest(t.url, head('GET /health/live', { host, 'x-filler': 'a'.repeat(64 * 1024) }));
    expectErrorAnswer(res, 431, '9009');
    expect(res.body.error_message).toBe('The request headers are too large.');
  });

  it('answers headers that do not arrive in time with 408', async () => {
    const res = await rawRequest(t.url, `GET /health/live HTTP/1.1\r\nhost: ${host}\r\n`);
    expectErrorAnswer(res, 408, '9008');
    expect(res.body.error_message).toBe('The request did not arrive in time.');
  });

  it.each([
    { route: 'POST /v1/keys', type: 'application/json', start: '{"name":"' },
    {
      route: 'POST /v1/image/edit/upload',
      type: 'multipart/form-data; boundary=b0',
      start: '--b0\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG',
    },
  ])('answers a body that stops short of its Content-Length with 408 on $route', async ({ route, type, start }) => {
    const id = `slow-body-${route.length}`;
    const request = head(route, {
      host,
      authorization: `Bearer ${t.adminKey}`,
      'content-type': type,
      'content-length': 1000,
      'x-request-id': id,
    });
    const res = await rawRequest(t.url, `${request}${start}`);
    expect(res.status, res.text).toBe(408);
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.body).toMatchObject({ error_code: '9008', error_type: 'general' });
    // The handler still waiting for that body fails once the connection is gone: the client's doing, not ours.
    const aborted = await logLine((line) => line.request_id === id && line.status === 400);
    expect(aborted.msg).toBe('request refused');
    expect(t.logs.filter((line) => JSON.parse(line).level === 'error')).toEqual([]);
  });

  it('still serves requests that arrive in time on the same server', async () => {
    const res = await rawRequest(t.url, head('GET /health/live', { host, connection: 'close' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'ok' } });
  });
});

describe('a request body that stops arriving', () => {
  let t: TestApp;
  let host: string;

  beforeAll(async () => {
    // The whole-request limit far away: what answers here is the body's idle limit.
    t = await startTestApp({ REQUEST_TIMEOUT_MS: '60000', BODY_IDLE_TIMEOUT_MS: '500' });
    host = new URL(t.url).host;
  });
  afterAll(() => t.close());

  it('is answered 408 in the Error body once nothing came for BODY_IDLE_TIMEOUT_MS, and closed', async () => {
    const id = randomUUID();
    const request = head('POST /v1/keys', {
      host,
      authorization: `Bearer ${t.adminKey}`,
      'content-type': 'application/json',
      'content-length': 1000,
      'x-request-id': id,
    });
    const res = await rawRequest(t.url, `${request}{"name":"`, { timeoutMs: 20_000 });
    expectErrorAnswer(res, 408, '9008');
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.body.error_message).toBe(
      'The request body stopped arriving: nothing came for 0.5 s (BODY_IDLE_TIMEOUT_MS).',
    );
    // answered by the idle limit, well before the whole-request limit of 60 s
    expect(res.elapsedMs).toBeLessThan(20_000);
  });

  it('lets a slow but moving body through: a byte every 200 ms for three times the idle limit', async () => {
    const body = JSON.stringify({ name: 'slow upload key', scopes: ['image_editing'] });
    const request = head('POST /v1/keys', {
      host,
      authorization: `Bearer ${t.adminKey}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    const trickled = body.slice(0, 8).split('');
    const res = await rawRequest(t.url, request, {
      timeoutMs: 20_000,
      more: { chunks: [...trickled, body.slice(8)], everyMs: 200 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.name).toBe('slow upload key');
  });
});
