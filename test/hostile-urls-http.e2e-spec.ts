import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fillUrl, HOSTILE_URLS, type FixturePorts } from './fixtures/hostile-urls';
import { installConnectGuard, startListener, type ConnectGuard, type CountingListener } from './helpers/connect-guard';
import { client } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * The hostile-URL table through the HTTP API: each URL given as a web folder's `base_url` (which the service
 * reaches before saving) is refused with the Error object, and nothing connects anywhere but loopback 127.0.0.1:
 * the connect guard fails any other attempt before a packet leaves, and a listener on the forbidden 127.0.0.2
 * counts connections.
 */
describe('hostile URLs through POST /v1/storage/storages', () => {
  let app: TestApp;
  let origin: http.Server;
  let trap: CountingListener;
  let guard: ConnectGuard;
  let ports: FixturePorts;
  let answers: Record<string, string[]> = {};
  const hits: string[] = [];

  beforeAll(async () => {
    // The allowed server of the table: `/redirect?to=<url>` and an endless `/loop/<n>` (bounded at 50).
    origin = http.createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      hits.push(url.pathname);
      const [, route, step] = url.pathname.split('/');
      if (route === 'redirect') {
        response.writeHead(302, { location: fillUrl(url.searchParams.get('to') ?? '/', ports) }).end();
      } else if (route === 'loop' && Number(step) < 50) {
        response.writeHead(302, { location: `/loop/${Number(step) + 1}` }).end();
      } else response.writeHead(404).end();
    });
    await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
    trap = await startListener('127.0.0.2');
    ports = { origin: `http://127.0.0.1:${(origin.address() as net.AddressInfo).port}`, trap: trap.port };
    app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', FETCH_TIMEOUT_MS: '5000' });
    guard = installConnectGuard(['127.0.0.1']);
    // Stubbed DNS: `.test` names answer what the row says; every other name is unknown.
    vi.spyOn(dns.promises, 'lookup').mockImplementation((async (host: string) => {
      const found = answers[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found.map((address): LookupAddress => ({ address, family: net.isIP(address) }));
    }) as unknown as typeof dns.promises.lookup);
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    guard?.restore();
    await app?.close();
    origin?.closeAllConnections();
    await new Promise<void>((done) => origin?.close(() => done()));
    await trap?.close();
  });

  afterEach(() => {
    expect(guard.refused.splice(0)).toEqual([]);
    expect(trap.connections).toBe(0);
  });

  it.each(HOSTILE_URLS)('$name: $url', async (row) => {
    answers = row.dns ?? {};
    hits.length = 0;
    const res = await client(app.url, app.adminKey).post('/v1/storage/storages', {
      name: 'hostile',
      type: 'web_folder',
      parameters: { base_url: fillUrl(row.url, ports) },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body).sort()).toEqual(['error_code', 'error_details', 'error_message', 'error_type']);
    if (res.body.error_code === '9000') {
      // Refused by the request schema already (not an http(s) URL by its rules): the field is named.
      expect(res.body.error_details).toHaveProperty(['parameters.base_url']);
    } else {
      expect(res.body).toMatchObject({ error_code: '1303', error_type: 'storage', error_details: {} });
      expect(res.body.error_message).toMatch(row.message);
      if (row.url.startsWith('{origin}')) expect(hits.length).toBeGreaterThan(0);
    }
    const saved = (await client(app.url, app.adminKey).get('/v1/storage/storages')).body.data;
    expect(saved).toEqual([]);
  });

  it('still refuses at least 30 of them at the address check itself, not only by the schema', async () => {
    let byPolicy = 0;
    for (const row of HOSTILE_URLS) {
      answers = row.dns ?? {};
      const res = await client(app.url, app.adminKey).post('/v1/storage/storages', {
        name: 'hostile',
        type: 'web_folder',
        parameters: { base_url: fillUrl(row.url, ports) },
      });
      if (res.body.error_code === '1303') byPolicy += 1;
    }
    expect(byPolicy).toBeGreaterThanOrEqual(30);
  });

  describe('as the endpoint of an s3 storage', () => {
    const create = (endpoint: string) =>
      client(app.url, app.adminKey).post('/v1/storage/storages', {
        name: 'hostile-s3',
        type: 's3',
        parameters: { bucket: 'bkt', endpoint, credentials: { access_key: 'AK', secret_access_key: 'SK' } },
      });

    it.each([
      [
        'a name resolving to loopback',
        'http://loopback.test:{trap}',
        { 'loopback.test': ['127.0.0.2'] },
        /127\.0\.0\.2/,
      ],
      [
        'a name resolving to the metadata address',
        'http://meta.test',
        { 'meta.test': ['169.254.169.254'] },
        /169\.254/,
      ],
      ['the metadata address', 'http://169.254.169.254', {}, /169\.254\.169\.254/],
      ['IPv6 loopback', 'http://[::1]:{trap}', {}, /::1/],
    ])('%s', async (_name, endpoint, dnsAnswers, reason) => {
      answers = dnsAnswers;
      const res = await create(fillUrl(endpoint, ports));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error_code: '1303', error_type: 'storage' });
      expect(res.body.error_message).toMatch(reason);
    });

    it('checks every connection, not only the first lookup (DNS rebinding)', async () => {
      // The first answer passes the check at create; the connection's own lookup gets the forbidden one.
      let calls = 0;
      vi.mocked(dns.promises.lookup).mockImplementation((async () => {
        calls += 1;
        const address = calls === 1 ? '127.0.0.1' : '127.0.0.2';
        return [{ address, family: 4 }];
      }) as unknown as typeof dns.promises.lookup);
      const res = await create(`http://rebind.test:${trap.port}`);
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(res.status).toBe(422);
      expect(res.body.error_message).toMatch(/127\.0\.0\.2/);
    });
  });
});
