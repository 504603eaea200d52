import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type ApiResponse } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';

/** Every JSON route, and a body that would pass its validation but for what a test adds. */
const ROUTES: Array<{ method: string; path: string; body: Record<string, unknown> }> = [
  { method: 'POST', path: '/v1/keys', body: { name: 'k', scopes: ['storage'] } },
  { method: 'POST', path: '/v1/storage/storages', body: { name: 's', type: 'web_folder', parameters: {} } },
  { method: 'PATCH', path: '/v1/storage/storages/1', body: { parameters: {} } },
  { method: 'POST', path: '/v1/image/edit', body: { input: 'https://example.com/a.jpg', operations: {} } },
  { method: 'POST', path: '/v1/image/edit/async', body: { input: 'https://example.com/a.jpg', operations: {} } },
  { method: 'POST', path: '/v1/image/edit/batch', body: { input: 'https://example.com/a.jpg', operations: {} } },
];

/** The member names every plain object inherits; none is a member of any request object. */
const INHERITED = Object.getOwnPropertyNames(Object.prototype);

/** `{"a": {"a": ... 1 ...}}`, `levels` objects deep, as text (JSON.stringify of it could overflow itself). */
function nested(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{"a":1}${'}'.repeat(levels - 1)}`;
}

/** The route's valid body with `member` set to raw JSON text. */
function withMember(body: Record<string, unknown>, member: string, json: string): string {
  const base = JSON.stringify(body);
  return `${base.slice(0, -1)},${JSON.stringify(member)}:${json}}`;
}

const TOO_DEEP = {
  error_code: '9007',
  error_type: 'validation',
  error_message: 'The request body nests objects and arrays deeper than 32 levels.',
  error_details: {},
};

describe('JSON bodies', () => {
  let t: TestApp;
  const send = (method: string, path: string, rawBody: string, headers: Record<string, string> = {}) =>
    call(t.url, method, path, { key: t.adminKey, rawBody, headers });

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  function expectNo5xx(responses: ApiResponse[]): void {
    expect(responses.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    expect(t.logs.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  }

  it.each(ROUTES)(
    'refuses a body nested too deep on $method $path with 400, inside a member and at the top',
    async (route) => {
      const inside = await send(route.method, route.path, withMember(route.body, 'operations', nested(1300)));
      const top = await send(route.method, route.path, `${'['.repeat(2500)}${']'.repeat(2500)}`);
      const objects = await send(route.method, route.path, nested(2500));
      for (const res of [inside, top, objects]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual(TOO_DEEP);
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
      expectNo5xx([inside, top, objects]);
    },
  );

  it('takes nesting up to the limit and refuses one level more', async () => {
    // 32 levels: the body and 31 more objects; the refusal is then about the unknown member, not the depth.
    const atLimit = await send('POST', '/v1/keys', withMember({ name: 'k', scopes: ['storage'] }, 'x', nested(31)));
    expect(atLimit.status).toBe(422);
    expect(atLimit.body.error_details).toEqual({ x: ['unknown member; no other members are allowed'] });
    const over = await send('POST', '/v1/keys', withMember({ name: 'k', scopes: ['storage'] }, 'x', nested(32)));
    expect(over.status).toBe(400);
    expect(over.body).toEqual(TOO_DEEP);
    // Brackets inside strings are text, not nesting.
    const inString = await send('POST', '/v1/keys', JSON.stringify({ name: `${'[{'.repeat(50)}"\\`, x: 1 }));
    expect(inString.status).toBe(422);
    expect(inString.body.error_details.x).toEqual(['unknown member; no other members are allowed']);
  });

  it.each(ROUTES)(
    'refuses members named after Object.prototype on $method $path with 422 and their path',
    async (route) => {
      const responses: ApiResponse[] = [];
      for (const name of INHERITED) {
        const top = await send(route.method, route.path, withMember(route.body, name, '{"a":1}'));
        expect(top.status, `${name}: ${top.text}`).toBe(422);
        expect(top.body.error_details).toEqual({ [name]: ['unknown member; no other members are allowed'] });
        const inner = `{"x":[{"${name}":1}]}`;
        const deeper = await send(route.method, route.path, withMember(route.body, 'operations', inner));
        expect(deeper.status, `${name}: ${deeper.text}`).toBe(422);
        expect(deeper.body.error_details).toEqual({
          [`operations.x.0.${name}`]: ['unknown member; no other members are allowed'],
        });
        responses.push(top, deeper);
      }
      expectNo5xx(responses);
    },
  );

  describe('the upload data part', () => {
    function multipart(data: string, type?: string): Buffer {
      const dataHead = `Content-Disposition: form-data; name="data"${type ? `\r\nContent-Type: ${type}` : ''}`;
      return Buffer.from(
        '--b0\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n' +
          `not an image\r\n--b0\r\n${dataHead}\r\n\r\n${data}\r\n--b0--\r\n`,
      );
    }
    const upload = (data: string, type?: string) =>
      call(t.url, 'POST', '/v1/image/edit/upload', {
        key: t.adminKey,
        rawBody: multipart(data, type),
        headers: { 'content-type': 'multipart/form-data; boundary=b0' },
      });

    it.each([undefined, 'application/json'])('refuses a data part (%s) nested too deep with 400', async (type) => {
      const res = await upload(`{"operations":${nested(1300)}}`, type);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(TOO_DEEP);
      expectNo5xx([res]);
    });

    it.each([undefined, 'application/json'])(
      'refuses inherited member names in a data part (%s) with 422',
      async (type) => {
        const responses: ApiResponse[] = [];
        for (const name of INHERITED.filter((n) => n !== '__proto__' || type === undefined)) {
          const res = await upload(`{"operations":{"resizing":{"${name}":1}}}`, type);
          expect(res.status, `${name}: ${res.text}`).toBe(422);
          expect(res.body.error_details).toEqual({
            [`operations.resizing.${name}`]: ['unknown member; no other members are allowed'],
          });
          responses.push(res);
        }
        expectNo5xx(responses);
      },
    );
  });
});
