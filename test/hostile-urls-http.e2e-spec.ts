import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  addressesNotSent,
  fillUrl,
  HOSTILE_URLS,
  NOT_PUBLIC,
  type FixturePorts,
  type HostileUrl,
} from './fixtures/hostile-urls';
import { installConnectGuard, startListener, type ConnectGuard, type CountingListener } from './helpers/connect-guard';
import { client } from './helpers/http';
import { waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * The hostile-URL table through the HTTP API: each URL given as a web folder's `base_url` (which the service
 * reaches before saving) or as an edit's input is refused with the Error object, and nothing connects anywhere but
 * loopback 127.0.0.1: the connect guard fails any other attempt before a packet leaves, and a listener on the
 * forbidden 127.0.0.2 counts connections. No refusal tells the client an address it did not send itself (where a
 * name points, where a redirect went); the server log keeps that detail.
 */
describe('hostile URLs through POST /v1/storage/storages', () => {
  let app: TestApp;
  let origin: http.Server;
  let trap: CountingListener;
  let guard: ConnectGuard;
  let ports: FixturePorts;
  let answers: Record<string, string[]> = {};
  const hits: string[] = [];
  /** Requests to `/hold`, answered (404) when a test lets them go. */
  const held: http.ServerResponse[] = [];

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
      } else if (route === 'hold') {
        held.push(response);
      } else response.writeHead(404).end();
    });
    await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
    trap = await startListener('127.0.0.2');
    ports = { origin: `http://127.0.0.1:${(origin.address() as net.AddressInfo).port}`, trap: trap.port };
    // Embedded task queue (no REDIS_URL): task items run in this process, under the guard and the DNS stub.
    app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', FETCH_TIMEOUT_MS: '5000', REDIS_URL: undefined });
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

  /** What the app logged so far, as messages (the JSON lines escape quotes). */
  const logMessages = () => app.logs.map((line) => (JSON.parse(line) as { msg?: string }).msg ?? '').join('\n');

  /** The refusal says what the table says, no address the client did not send, and the log has the detail. */
  function expectRefusal(message: string, row: HostileUrl, sent: string): void {
    expect(message).toMatch(row.message);
    expect(addressesNotSent(message, sent)).toEqual([]);
    if (row.log) expect(logMessages()).toMatch(row.log);
    if (row.url.startsWith('{origin}')) expect(hits.length).toBeGreaterThan(0);
  }

  it.each(HOSTILE_URLS)('$name: $url', async (row) => {
    answers = row.dns ?? {};
    hits.length = 0;
    const url = fillUrl(row.url, ports);
    const res = await client(app.url, app.adminKey).post('/v1/storage/storages', {
      name: 'hostile',
      type: 'web_folder',
      parameters: { base_url: url },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body).sort()).toEqual(['error_code', 'error_details', 'error_message', 'error_type']);
    if (res.body.error_code === '9000') {
      // Refused by the request schema already (not an http(s) URL by its rules): the field is named.
      expect(res.body.error_details).toHaveProperty(['parameters.base_url']);
    } else {
      expect(res.body).toMatchObject({ error_code: '1303', error_type: 'storage', error_details: {} });
      expectRefusal(res.body.error_message, row, url);
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

  describe('as the input of an edit', () => {
    it.each(HOSTILE_URLS)('$name: $url', async (row) => {
      answers = row.dns ?? {};
      hits.length = 0;
      const url = fillUrl(row.url, ports);
      const res = await client(app.url, app.adminKey).post('/v1/image/edit', { input: url });
      if (res.body.error_code === '9000') {
        expect(res.status).toBe(422);
        expect(res.body.error_details).toHaveProperty(['input']);
        return;
      }
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error_code: '1401', error_type: 'general', error_details: {} });
      expectRefusal(res.body.error_message, row, url);
    });
  });

  it('refuses every hostile input of a batch in its item errors, naming no address', async () => {
    const rows = HOSTILE_URLS.filter((row) => /^(https?:|\{origin\})/.test(row.url));
    answers = Object.assign({}, ...rows.map((row) => row.dns ?? {}));
    const inputs = rows.map((row) => fillUrl(row.url, ports));
    const res = await client(app.url, app.adminKey).post('/v1/image/edit/batch', { input: inputs });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${res.body.data.id}`);
    expect(task.progress).toEqual({ total: rows.length, done: 0, failed: rows.length, retrying: 0 });
    for (const error of task.errors as { error: string; input_object: { input: string } }[]) {
      const row = rows[inputs.indexOf(error.input_object.input)];
      expect(error.error, row.name).toMatch(row.message);
      expect(addressesNotSent(error.error, error.input_object.input), row.name).toEqual([]);
    }
  });

  describe('as the webhook_url of a task: refused at submission, before the task exists', () => {
    // A redirect is the receiver's answer: judged (hop by hop) when the webhook is delivered.
    const rows = HOSTILE_URLS.filter((row) => !row.url.startsWith('{origin}'));

    async function submit(kind: 'async' | 'batch', row: HostileUrl) {
      answers = row.dns ?? {};
      hits.length = 0;
      const webhook = fillUrl(row.url, ports);
      const input = `${ports.origin}/input.png`;
      const res = await client(app.url, app.adminKey).post(`/v1/image/edit/${kind}`, {
        input: kind === 'batch' ? [input] : input,
        webhook_url: webhook,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error_details).toHaveProperty(['webhook_url']);
      if (res.body.error_code !== '9000') {
        expect(res.body).toMatchObject({ error_code: '1404', error_type: 'validation' });
        expect(res.body.error_details).toEqual({ webhook_url: [res.body.error_message] });
        expectRefusal(res.body.error_message, row, webhook);
      }
      // No task ran: its input was never requested.
      expect(hits).toEqual([]);
      return res.body.error_code as string;
    }

    it.each(rows)('async: $name: $url', async (row) => {
      await submit('async', row);
    });

    it('batch: every name resolving to a refused address', async () => {
      const named = rows.filter((row) => row.dns);
      expect(named.length).toBeGreaterThanOrEqual(5);
      for (const row of named) expect(await submit('batch', row)).toBe('1404');
    });

    it('accepts a name that does not resolve yet, leaving it to delivery (which retries)', async () => {
      answers = {};
      const res = await client(app.url, app.adminKey).post('/v1/image/edit/async', {
        input: `${ports.origin}/input.png`,
        webhook_url: 'http://later.test/hooks',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(logMessages()).toMatch(/webhook http:\/\/later\.test\/hooks does not resolve now \(ENOTFOUND\)/);
      await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${res.body.data.id}`);
    });

    it('judges the address again at delivery: a name that turns private by then is not posted to', async () => {
      answers = { 'hook.test': ['127.0.0.1'] };
      hits.length = 0;
      const res = await client(app.url, app.adminKey).post('/v1/image/edit/async', {
        input: `${ports.origin}/hold`,
        webhook_url: `http://hook.test:${trap.port}/hooks`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 10_000 });
      answers = { 'hook.test': ['127.0.0.2'] };
      held.splice(0).forEach((response) => response.writeHead(404).end());
      const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${res.body.data.id}`);
      expect(task.status).toBe('ERROR');
      await vi.waitFor(() => expect(logMessages()).toMatch(/webhook http:\/\/hook\.test:\d+\/hooks not delivered/), {
        timeout: 10_000,
      });
      expect(logMessages()).toMatch(/Host "hook\.test" resolves to 127\.0\.0\.2, a loopback address/);
    });
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
        /Host "loopback\.test" resolves to 127\.0\.0\.2/,
      ],
      [
        'a name resolving to the metadata address',
        'http://meta.test',
        { 'meta.test': ['169.254.169.254'] },
        /Host "meta\.test" resolves to 169\.254\.169\.254/,
      ],
      ['the metadata address', 'http://169.254.169.254', {}, /Address 169\.254\.169\.254 is a link-local/],
      ['IPv6 loopback', 'http://[::1]:{trap}', {}, /Address ::1 is a loopback/],
    ])('%s', async (_name, endpoint, dnsAnswers, log) => {
      answers = dnsAnswers;
      const sent = fillUrl(endpoint, ports);
      const res = await create(sent);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error_code: '1303', error_type: 'storage' });
      expect(res.body.error_message).toMatch(NOT_PUBLIC);
      expect(addressesNotSent(res.text, sent)).toEqual([]);
      expect(logMessages()).toMatch(log);
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
      expect(res.body.error_message).toMatch(NOT_PUBLIC);
      expect(addressesNotSent(res.text, `http://rebind.test:${trap.port}`)).toEqual([]);
      expect(logMessages()).toMatch(/Host "rebind\.test" resolves to 127\.0\.0\.2/);
    });
  });
});
