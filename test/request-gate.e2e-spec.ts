import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { sendFrom as send, type Answer } from './helpers/loopback-client';
import { startTestApp, type TestApp } from './helpers/test-app';

/** The contract's wrapped 429 with a Retry-After of 1 to `maxRetryAfter` seconds. */
function expectRefusal(answer: Answer, code: string, message: string, maxRetryAfter: number): void {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({
    detail: { error_code: code, error_type: 'general', error_message: message, error_details: {} },
  });
  expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(maxRetryAfter);
}

const BAD_KEY = 'sk_not_a_key_0000000000000000000000000000000';
/** Another unknown key each call: failures are counted per presented key too. */
let unknownKeys = 0;
const unknownKey = () => `sk_unknown_${String(++unknownKeys).padStart(33, '0')}`;

describe('limits per client address, before authentication', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      ADDRESS_RATE_LIMIT_PER_SECOND: '1000',
      ADDRESS_RATE_LIMIT_PER_MINUTE: '12',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '4',
    });
  });
  afterAll(() => t.close());

  it('answers a flood of bad keys from one address with 429 after its failure budget; others still get 401', async () => {
    const from = '127.0.0.2';
    for (let i = 0; i < 4; i++) {
      expect((await send(t.url, { from, path: '/v1/keys', key: BAD_KEY })).status).toBe(401);
    }
    const refused = await send(t.url, { from, path: '/v1/keys', key: BAD_KEY });
    // One failure comes back every 15 s at 4 a minute.
    expectRefusal(refused, '2003', 'Too many failed authentications from this address. Retry later.', 15);
    expect(refused.headers['x-request-id']).toBeTruthy();

    // Without TRUST_PROXY a forwarded address is the client's word, not its address.
    const forwarded = { 'x-forwarded-for': '198.51.100.1' };
    expect((await send(t.url, { from, path: '/v1/keys', key: BAD_KEY, headers: forwarded })).status).toBe(429);
    // Until then even a valid key from that address waits: it is not looked up either.
    expect((await send(t.url, { from, path: '/v1/keys', key: t.adminKey })).status).toBe(429);
    // Public routes need no key, so the failure budget does not hold them.
    expect((await send(t.url, { from, path: '/health/live' })).status).toBe(200);
    expect((await send(t.url, { from, path: '/health/ready' })).status).toBe(200);

    const other = await send(t.url, { from: '127.0.0.3', path: '/v1/keys', key: unknownKey() });
    expect(other.status).toBe(401);
    expect(other.body.error_code).toBe('111');
  });

  it('lets a key recently seen valid through an address whose failure budget others spent', async () => {
    const created = await call(t.url, 'POST', '/v1/keys', {
      key: t.adminKey,
      body: { name: 'behind a shared NAT', scopes: ['storage'] },
    });
    const valid = created.body.data.key as string;
    const shared = '127.0.0.11';
    // Four bad keys from the shared address spend its budget: an unknown key is refused before its lookup...
    for (let i = 0; i < 4; i++) {
      expect((await send(t.url, { from: shared, path: '/v1/storage/storages', key: unknownKey() })).status).toBe(401);
    }
    expect((await send(t.url, { from: shared, path: '/v1/storage/storages', key: unknownKey() })).status).toBe(429);
    // ...and so is a valid key this process has not yet answered.
    expect((await send(t.url, { from: shared, path: '/v1/storage/storages', key: valid })).status).toBe(429);
    // Once the key has been answered valid (here from its own network), the shared address no longer holds it.
    expect((await send(t.url, { from: '127.0.0.12', path: '/v1/storage/storages', key: valid })).status).toBe(200);
    const through = await send(t.url, { from: shared, path: '/v1/storage/storages', key: valid });
    expect(through.status).toBe(200);
    // Its own failures still hold it: four 403s (no `admin` scope) spend the key's budget, from any address.
    for (let i = 0; i < 4; i++)
      expect((await send(t.url, { from: shared, path: '/v1/keys', key: valid })).status).toBe(403);
    const refused = await send(t.url, { from: '127.0.0.13', path: '/v1/storage/storages', key: valid });
    expectRefusal(refused, '2003', 'Too many failed authentications with this API key. Retry later.', 15);
  });

  it('counts the failures of one unknown key across addresses', async () => {
    const key = unknownKey();
    for (let i = 0; i < 4; i++) {
      expect((await send(t.url, { from: `127.0.1.${i + 1}`, path: '/v1/keys', key })).status).toBe(401);
    }
    const refused = await send(t.url, { from: '127.0.1.9', path: '/v1/keys', key });
    expectRefusal(refused, '2003', 'Too many failed authentications with this API key. Retry later.', 15);
    // The fresh address keeps its own budget for other keys.
    expect((await send(t.url, { from: '127.0.1.9', path: '/v1/keys', key: unknownKey() })).status).toBe(401);
  });

  it('counts 403 answers as failed authentications too', async () => {
    const created = await call(t.url, 'POST', '/v1/keys', {
      key: t.adminKey,
      body: { name: 'storage only', scopes: ['storage'] },
    });
    const key = created.body.data.key as string;
    const from = '127.0.0.4';
    for (let i = 0; i < 4; i++) expect((await send(t.url, { from, path: '/v1/keys', key })).status).toBe(403);
    const refused = await send(t.url, { from, path: '/v1/keys', key });
    expect(refused.status).toBe(429);
    expect(refused.body.detail.error_code).toBe('2003');
  });

  it('limits the requests of one address on every route but the health probes', async () => {
    const from = '127.0.0.5';
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await send(t.url, { from, path: i % 2 ? '/nowhere' : '/tmp/x' })).status);
    expect(statuses).toEqual(Array(12).fill(404));
    const refused = await send(t.url, { from, path: '/v1/keys', key: t.adminKey });
    // 12 a minute: the next one in 5 s.
    expectRefusal(refused, '2002', 'Too Many Requests from this address. Retry later.', 5);
    expect((await send(t.url, { from, path: '/health/live' })).status).toBe(200);
    expect((await send(t.url, { from: '127.0.0.6', path: '/nowhere' })).status).toBe(404);
  });

  it('refuses an unauthenticated body with 401 without reading it, and public routes need no key', async () => {
    const from = '127.0.0.7';
    // Not JSON and over MAX_JSON_BODY_BYTES: parsing it would answer 400 or 413.
    const body = Buffer.alloc(t.config.maxJsonBodyBytes + 1024, 'x');
    const anonymous = await send(t.url, { from, method: 'POST', path: '/v1/keys', body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error_message).toBe('Authorization is required.');
    const wrongKey = await send(t.url, { from, method: 'POST', path: '/v1/keys', key: unknownKey(), body });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body.error_message).toBe('The API key is unknown or revoked.');
    const upload = await send(t.url, { from, method: 'POST', path: '/v1/image/edit/upload', body });
    expect(upload.status).toBe(401);
    // With a valid key the same body is read, and refused for its size.
    expect((await send(t.url, { from, method: 'POST', path: '/v1/keys', key: t.adminKey, body })).status).toBe(413);
    expect((await send(t.url, { from: '127.0.0.8', path: '/docs/openapi.json' })).status).toBe(200);
  });
});

describe('limits per client address behind a trusted proxy', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true', AUTH_FAILURE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(() => t.close());

  it('keeps the budget of the address in X-Forwarded-For', async () => {
    const as = (address: string) => ({
      from: '127.0.0.1',
      path: '/v1/keys',
      key: unknownKey(),
      headers: { 'x-forwarded-for': address },
    });
    expect((await send(t.url, as('203.0.113.7'))).status).toBe(401);
    expect((await send(t.url, as('203.0.113.7'))).status).toBe(401);
    expect((await send(t.url, as('203.0.113.7'))).status).toBe(429);
    expect((await send(t.url, as('203.0.113.8'))).status).toBe(401);
    // An IPv6 client is known by its /64: another address in it shares the budget.
    expect((await send(t.url, as('2001:db8:1:2::1'))).status).toBe(401);
    expect((await send(t.url, as('2001:db8:1:2::2'))).status).toBe(401);
    expect((await send(t.url, as('2001:db8:1:2:ffff::3'))).status).toBe(429);
    // Every forwarded value that is not an address is one client: writing another does not buy a fresh budget.
    expect((await send(t.url, as('not-an-address-1'))).status).toBe(401);
    expect((await send(t.url, as('not-an-address-2'))).status).toBe(401);
    const invalid = await send(t.url, as('something-else'));
    expect(invalid.status).toBe(429);
    expect(invalid.body.detail.error_message).toBe('Too many failed authentications from this address. Retry later.');
  });
});
