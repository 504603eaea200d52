import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardingProxy, type ForwardingProxy } from './helpers/forwarding-proxy';
import { sendFrom, type Sent } from './helpers/loopback-client';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * The service behind a reverse proxy, as docker-compose.yml runs it (docs/operations.md, "HTTPS"): clients on
 * their own loopback addresses call a proxy that replaces X-Forwarded-For with the address it sees; the API sees
 * one peer, the proxy. With TRUST_PROXY the client's address decides its per-address budget and is the one
 * logged; without it every client counts as the proxy.
 */
/** An unknown key per request id: failures are counted per presented key as well as per client. */
const unknownKey = (id: string) => `sk_${id.padEnd(43, 'x')}`;

/** A request with an unknown key (a failed authentication), tagged with a request id to find its log line. */
function failing(from: string, id: string, headers: Record<string, string> = {}): Sent {
  return { from, path: '/v1/keys', key: unknownKey(id), headers: { 'x-request-id': id, ...headers } };
}

/** The `client` of the "request completed" line of each request id. */
function loggedClients(app: TestApp): Record<string, string> {
  const clients: Record<string, string> = {};
  for (const line of app.logs.map((text) => JSON.parse(text) as Record<string, unknown>)) {
    if (line.msg === 'request completed') clients[String(line.request_id)] = String(line.client);
  }
  return clients;
}

/** Waits (bounded) until the app has logged the completion of each request id. */
async function waitForLines(app: TestApp, ids: string[]): Promise<Record<string, string>> {
  for (let tries = 0; tries < 50; tries++) {
    const clients = loggedClients(app);
    if (ids.every((id) => id in clients)) return clients;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return loggedClients(app);
}

describe('behind a reverse proxy, with TRUST_PROXY', () => {
  let app: TestApp;
  let proxy: ForwardingProxy;

  beforeAll(async () => {
    app = await startTestApp({ TRUST_PROXY: 'true', AUTH_FAILURE_LIMIT_PER_MINUTE: '2' });
    proxy = await startForwardingProxy(app.url);
  });
  afterAll(async () => {
    await proxy?.stop();
    await app?.close();
  });

  it('keeps a failure budget per client, not per proxy, and a client cannot choose its address', async () => {
    const statuses = async (sent: Sent[]) => {
      const answers: number[] = [];
      for (const one of sent) answers.push((await sendFrom(proxy.url, one)).status);
      return answers;
    };
    // 127.0.0.31 spends its two failures; its third request is refused before its key is looked up.
    expect(await statuses([failing('127.0.0.31', 'a1'), failing('127.0.0.31', 'a2')])).toEqual([401, 401]);
    const refused = await sendFrom(proxy.url, failing('127.0.0.31', 'a3'));
    expect(refused.status).toBe(429);
    expect(refused.body.detail.error_code).toBe('2003');
    // Another client behind the same proxy has its own budget.
    expect(await statuses([failing('127.0.0.32', 'b1')])).toEqual([401]);
    // A forged X-Forwarded-For does not move a client into another budget, either way: the proxy replaces it.
    const forgedOther = failing('127.0.0.31', 'a4', { 'x-forwarded-for': '203.0.113.50' });
    const forgedLocked = failing('127.0.0.33', 'c1', { 'x-forwarded-for': '127.0.0.31' });
    expect(await statuses([forgedOther, forgedLocked])).toEqual([429, 401]);

    const clients = await waitForLines(app, ['a1', 'a3', 'a4', 'b1', 'c1']);
    expect(clients).toMatchObject({
      a1: '127.0.0.31',
      a3: '127.0.0.31',
      a4: '127.0.0.31',
      b1: '127.0.0.32',
      c1: '127.0.0.33',
    });
  });

  it('logs `invalid`, never the text, when the forwarded address is not an IP address', async () => {
    // What a client reaching the API port directly (not through the proxy) could send.
    const answer = await sendFrom(app.url, {
      from: '127.0.0.34',
      path: '/nowhere',
      headers: { 'x-request-id': 'd1', 'x-forwarded-for': 'not-an-address' },
    });
    expect(answer.status).toBe(404);
    const clients = await waitForLines(app, ['d1']);
    expect(clients.d1).toBe('invalid');
    expect(app.logs.join('\n')).not.toContain('not-an-address');
  });
});

describe('behind a reverse proxy, without TRUST_PROXY', () => {
  let app: TestApp;
  let proxy: ForwardingProxy;

  beforeAll(async () => {
    app = await startTestApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: '2' });
    proxy = await startForwardingProxy(app.url);
  });
  afterAll(async () => {
    await proxy?.stop();
    await app?.close();
  });

  it('ignores X-Forwarded-For: every client counts as the proxy, so one client’s failures lock out the others', async () => {
    expect((await sendFrom(proxy.url, failing('127.0.0.41', 'e1'))).status).toBe(401);
    expect((await sendFrom(proxy.url, failing('127.0.0.41', 'e2'))).status).toBe(401);
    // A different client, refused for the first one's failures: the budget is the proxy's.
    const other = await sendFrom(proxy.url, failing('127.0.0.42', 'f1'));
    expect(other.status).toBe(429);
    expect(other.body.detail.error_code).toBe('2003');
    const clients = await waitForLines(app, ['e1', 'f1']);
    expect(clients).toMatchObject({ e1: '127.0.0.1', f1: '127.0.0.1' });
  });

  it('still lets a key recently seen valid through the proxy’s spent budget', async () => {
    const seen = await sendFrom(app.url, { from: '127.0.0.43', path: '/v1/keys', key: app.adminKey });
    expect(seen.status).toBe(200);
    expect((await sendFrom(proxy.url, failing('127.0.0.44', 'g1'))).status).toBe(429);
    expect((await sendFrom(proxy.url, { from: '127.0.0.44', path: '/v1/keys', key: app.adminKey })).status).toBe(200);
  });
});
