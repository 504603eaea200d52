import dns, { type LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Logger } from '@nestjs/common';
import { AppConfig, loadConfig } from '@app/common';
import { AddressPolicy } from '../libs/storage/src/fetch/address-policy';
import { SafeFetcher } from '../libs/storage/src/fetch/safe-fetcher';
import { SampleImages } from '../libs/storage/src/samples/sample-images';
import { addressesNotSent, fillUrl, HOSTILE_URLS, type FixturePorts } from './fixtures/hostile-urls';
import { type ConnectGuard, type CountingListener, installConnectGuard, startListener } from './helpers/connect-guard';
import { rejected } from './helpers/rejected';

/** A valid 1×1 greyscale PNG, built here so that the fixture's origin is plain. */
function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, 0x80]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PNG = tinyPng();
const CHUNK = Buffer.alloc(1024, 0x61);
/** Bounds on what the test server does on its own, so that no test loops forever. */
const MAX_CHUNKS = 200;
const MAX_LOOP = 50;

interface Hit {
  path: string;
  host?: string;
  userAgent?: string;
}

let ports: FixturePorts;
let server: http.Server;
let trap: CountingListener;
let guard: ConnectGuard;
let dataDir: string;
const hits: Hit[] = [];
/** Chunked responses: chunks written and whether the server saw its socket close early. */
const chunked = { written: 0, closed: Promise.resolve() };
/** Per-test DNS answers; a function lets a test answer differently on each query. */
let resolver: (host: string) => string[] | undefined = () => undefined;
/** What the fetcher logged (Nest Logger, any level) during the test: the details the client is not told. */
let logged: string[] = [];
/** The one message of every connection failure, whatever its cause (refused, reset, timeout, unknown name). */
const unreachable = (url: string) => `Download of ${url} failed: the server could not be reached or did not answer.`;

function handle(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', ports.origin);
  hits.push({ path: url.pathname, host: request.headers.host, userAgent: request.headers['user-agent'] });
  const [, route, arg] = url.pathname.split('/');
  const redirect = (status: number, location: string) => response.writeHead(status, { location }).end();
  switch (route) {
    case 'png-as-text':
      return void response.writeHead(200, { 'content-type': 'text/plain' }).end(PNG);
    case 'text':
      return void response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('hello');
    case 'redirect':
      return void redirect(302, fillUrl(url.searchParams.get('to') ?? '/', ports));
    case 'chain':
      return void (Number(arg) > 0 ? redirect(301, `/chain/${Number(arg) - 1}`) : redirect(307, '/png-as-text'));
    case 'loop':
      return void (Number(arg) < MAX_LOOP ? redirect(302, `/loop/${Number(arg) + 1}`) : response.end('end'));
    case 'see-other':
      return void redirect(303, '/png-as-text');
    case 'status':
      return void response.writeHead(Number(arg)).end('answer');
    case 'bad-location':
      return void redirect(302, 'http://[::1');
    case 'declared-large':
      return void response.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000));
    case 'chunked-large':
      return streamChunks(request, response);
    case 'cut': {
      // declares 5000 bytes, sends 1000 and closes the connection
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': '5000' }).write(Buffer.alloc(1000));
      return void setTimeout(() => response.socket?.destroy(), 20);
    }
    case 'slow-headers': {
      const timer = setTimeout(() => response.end('late'), 3000);
      return void response.on('close', () => clearTimeout(timer));
    }
    case 'slow-body': {
      response.writeHead(200, { 'content-type': 'image/png' }).write(PNG);
      const timer = setTimeout(() => response.end(), 3000);
      return void response.on('close', () => clearTimeout(timer));
    }
    default:
      return void response.writeHead(404).end('not found');
  }
}

/** 1 KiB every 5 ms, up to MAX_CHUNKS; records when the client closes the connection. */
function streamChunks(request: IncomingMessage, response: ServerResponse): void {
  chunked.written = 0;
  chunked.closed = new Promise((resolve) => request.socket.once('close', () => resolve()));
  response.writeHead(200, { 'content-type': 'application/octet-stream' });
  const timer = setInterval(() => {
    if (response.destroyed || chunked.written >= MAX_CHUNKS) {
      clearInterval(timer);
      if (!response.destroyed) response.end();
      return;
    }
    chunked.written += 1;
    response.write(CHUNK);
  }, 5);
  response.on('close', () => clearInterval(timer));
}

function fetcher(env: Record<string, string> = {}): SafeFetcher {
  const config: AppConfig = loadConfig({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    FETCH_TIMEOUT_MS: '5000',
    FETCH_CONNECT_TIMEOUT_MS: '1000',
    DATA_DIR: dataDir,
    ...env,
  });
  return new SafeFetcher(config, new AddressPolicy(config), new SampleImages(config));
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'atelier-fetch-'));
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  trap = await startListener('127.0.0.2');
  ports = { origin: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, trap: trap.port };
  guard = installConnectGuard(['127.0.0.1']);
});

afterAll(async () => {
  guard?.restore();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await trap?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  hits.length = 0;
  resolver = () => undefined;
  logged = [];
  for (const level of ['log', 'warn'] as const) {
    vi.spyOn(Logger.prototype, level).mockImplementation((message: unknown) => void logged.push(String(message)));
  }
  vi.spyOn(dns.promises, 'lookup').mockImplementation((async (host: string) => {
    const answers = resolver(host);
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answers.map((address): LookupAddress => ({ address, family: net.isIP(address) }));
  }) as unknown as typeof dns.promises.lookup);
});

afterEach(() => {
  vi.restoreAllMocks();
  // Nothing may have tried to reach anything but the test's own server, and the forbidden listener saw nothing.
  const refused = guard.refused.splice(0);
  expect(refused).toEqual([]);
  expect(trap.connections).toBe(0);
});

describe('SafeFetcher refuses hostile URLs before connecting', () => {
  it('has a table of at least 30 cases', () => {
    expect(HOSTILE_URLS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(HOSTILE_URLS)('$name: $url', async (row) => {
    resolver = (host) => row.dns?.[host];
    const url = fillUrl(row.url, ports);
    const error = await rejected(fetcher().download(url));
    expect(error).toMatchObject({ codeName: row.expected, retryable: false });
    expect(error.message).toMatch(row.message);
    // The client is not told where a name points nor where a redirect went; the server log is.
    expect(addressesNotSent(error.message, url)).toEqual([]);
    if (row.log) expect(logged.join('\n')).toMatch(row.log);
    // A redirect case must have reached the allowed server, so that the refusal is the redirect's.
    if (row.url.startsWith('{origin}')) expect(hits.length).toBeGreaterThan(0);
  });
});

describe("SafeFetcher reads the service's own sample images from disk", () => {
  // PUBLIC_BASE_URL is the test server's origin: were a sample URL fetched, the server would see the request.
  const own = () => fetcher({ PUBLIC_BASE_URL: ports.origin, FETCH_ALLOW_HOSTS: '' });

  it('without a connection, although the address policy refuses the (loopback) origin', async () => {
    const connections = guard.allowed.length;
    const result = await own().download(`${ports.origin}/samples/mug.jpg`);
    expect(result.contentType).toBe('image/jpeg');
    expect(result.buffer.equals(readFileSync(join(__dirname, '../libs/storage/samples/mug.jpg')))).toBe(true);
    const missing = await rejected(own().download(`${ports.origin}/samples/missing.jpg`));
    expect(missing).toMatchObject({ codeName: 'FETCH_FAILED', message: 'The URL answered HTTP 404.' });
    expect(hits).toEqual([]);
    expect(guard.allowed.length).toBe(connections);
  });

  it('and nothing else of the origin: a path that leaves the folder goes to the network, under the policy', async () => {
    const refused = await rejected(own().download(`${ports.origin}/samples/%2e%2e/png-as-text`));
    expect(refused.codeName).toBe('FETCH_REFUSED');
    const allowed = await fetcher({ PUBLIC_BASE_URL: ports.origin }).download(`${ports.origin}/samples/../png-as-text`);
    expect(allowed.buffer.equals(PNG)).toBe(true);
    expect(hits.map((hit) => hit.path)).toEqual(['/png-as-text']);
  });
});

describe('SafeFetcher downloads from allowed servers', () => {
  it('sniffs the type from the bytes over a wrong header, and sends its User-Agent', async () => {
    const result = await fetcher().download(`${ports.origin}/png-as-text`);
    expect(result.contentType).toBe('image/png');
    expect(result.buffer.equals(PNG)).toBe(true);
    expect(hits).toEqual([{ path: '/png-as-text', host: ports.origin.slice(7), userAgent: 'Atelier/0.1' }]);
  });

  it("falls back to the header's media type for bytes it does not recognise", async () => {
    const result = await fetcher().download(`${ports.origin}/text`);
    expect(result).toMatchObject({ contentType: 'text/plain', url: `${ports.origin}/text` });
    expect(result.buffer.toString()).toBe('hello');
  });

  it('follows a chain of 5 redirects and reports the final URL', async () => {
    const result = await fetcher().download(`${ports.origin}/chain/4`);
    expect(result.url).toBe(`${ports.origin}/png-as-text`);
    expect(result.buffer.equals(PNG)).toBe(true);
    expect(hits.map((hit) => hit.path)).toEqual([
      '/chain/4',
      '/chain/3',
      '/chain/2',
      '/chain/1',
      '/chain/0',
      '/png-as-text',
    ]);
  });

  it('refuses the 6th redirect without requesting its target', async () => {
    const error = await rejected(fetcher().download(`${ports.origin}/chain/5`));
    expect(error.codeName).toBe('FETCH_REFUSED');
    expect(hits).toHaveLength(6);
  });

  it('follows 303 with GET', async () => {
    const response = await fetcher().open(`${ports.origin}/see-other`);
    expect(response).toMatchObject({ status: 200, contentType: 'image/png', url: `${ports.origin}/png-as-text` });
    response.body.destroy();
  });

  it('returns any final status from open, and download refuses a non-2xx', async () => {
    const response = await fetcher().open(`${ports.origin}/missing`);
    expect(response.status).toBe(404);
    response.body.destroy();
    const error = await rejected(fetcher().download(`${ports.origin}/missing`));
    expect(error.codeName).toBe('FETCH_FAILED');
    expect(error.message).toBe('The URL answered HTTP 404.');
  });

  // Batch items are retried on `retryable`, set here where the answer is read: only a status that may change.
  it.each([
    [404, false],
    [410, false],
    [403, false],
    [400, false],
    [408, true],
    [429, true],
    [500, true],
    [503, true],
  ])('marks a download answered %i retryable: %s', async (status, retryable) => {
    const error = await rejected(fetcher().download(`${ports.origin}/status/${status}`));
    expect(error).toMatchObject({ codeName: 'FETCH_FAILED', message: `The URL answered HTTP ${status}.`, retryable });
  });

  it('fails for good on a redirect to an invalid URL: the origin answers it every time', async () => {
    const error = await rejected(fetcher().download(`${ports.origin}/bad-location`));
    expect(error).toMatchObject({ codeName: 'FETCH_FAILED', retryable: false });
    expect(error.message).toMatch(/redirected to an invalid URL/);
  });

  it('connects to the one address resolved per hop (pinning against DNS rebinding)', async () => {
    let queries = 0;
    // A rebinding resolver: the allowed address first, the forbidden one on any later query.
    resolver = (host) => (host === 'rebind.test' ? [queries++ === 0 ? '127.0.0.1' : '127.0.0.2'] : undefined);
    const origin = `http://rebind.test:${new URL(ports.origin).port}`;
    const result = await fetcher().download(`${origin}/png-as-text`);
    expect(result.buffer.equals(PNG)).toBe(true);
    expect(dns.promises.lookup).toHaveBeenCalledTimes(1);
    expect(hits).toEqual([{ path: '/png-as-text', host: origin.slice(7), userAgent: 'Atelier/0.1' }]);
    expect(guard.allowed.at(-1)).toBe('127.0.0.1');
  });

  it('re-uses one connection for downloads from the same origin, checking the addresses for each', async () => {
    resolver = (host) => (host === 'again.test' ? ['127.0.0.1'] : undefined);
    let connections = 0;
    const count = () => void (connections += 1);
    server.on('connection', count);
    const client = fetcher();
    try {
      const url = `http://again.test:${new URL(ports.origin).port}/png-as-text`;
      for (let i = 0; i < 3; i++) expect((await client.download(url)).buffer.equals(PNG)).toBe(true);
      expect(hits).toHaveLength(3);
      expect(connections).toBe(1);
      expect(dns.promises.lookup).toHaveBeenCalledTimes(3);
    } finally {
      server.off('connection', count);
      client.onApplicationShutdown();
    }
  });

  it('does not re-use a connection once the host resolves to a refused address', async () => {
    let queries = 0;
    resolver = (host) => (host === 'turns.test' ? [queries++ === 0 ? '127.0.0.1' : '127.0.0.2'] : undefined);
    const client = fetcher();
    try {
      const url = `http://turns.test:${new URL(ports.origin).port}/png-as-text`;
      expect((await client.download(url)).buffer.equals(PNG)).toBe(true);
      const error = await rejected(client.download(url));
      expect(error.codeName).toBe('FETCH_REFUSED');
      expect(hits).toHaveLength(1);
    } finally {
      client.onApplicationShutdown();
    }
  });

  it('resolves each redirect hop once', async () => {
    resolver = (host) => (host === 'hop.test' ? ['127.0.0.1'] : undefined);
    const result = await fetcher().download(`http://hop.test:${new URL(ports.origin).port}/chain/2`);
    expect(result.contentType).toBe('image/png');
    expect(hits).toHaveLength(4);
    expect(dns.promises.lookup).toHaveBeenCalledTimes(4);
  });
});

describe('SafeFetcher limits', () => {
  it('fails at once on a declared Content-Length over the cap', async () => {
    const error = await rejected(fetcher().open(`${ports.origin}/declared-large`, { maxBytes: 4096 }));
    expect(error).toMatchObject({ codeName: 'FETCH_TOO_LARGE', retryable: false });
    expect(error.message).toMatch(/declares 5000 bytes, more than the limit of 4096 bytes/);
  });

  it('fails a chunked body once it passes the cap, and closes the connection', async () => {
    const error = await rejected(fetcher().download(`${ports.origin}/chunked-large`, { maxBytes: 4096 }));
    expect(error).toMatchObject({ codeName: 'FETCH_TOO_LARGE', retryable: false });
    expect(error.message).toMatch(/is larger than the limit of 4096 bytes/);
    await chunked.closed;
    expect(chunked.written).toBeLessThan(MAX_CHUNKS);
  });

  it('times out a server that does not answer', async () => {
    const started = Date.now();
    const error = await rejected(fetcher({ FETCH_TIMEOUT_MS: '300' }).download(`${ports.origin}/slow-headers`));
    expect(error).toMatchObject({ codeName: 'FETCH_FAILED', retryable: true });
    expect(error.message).toBe(`Download of ${ports.origin}/slow-headers timed out after 300 ms.`);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out a body that stalls, erroring the stream', async () => {
    const response = await fetcher({ FETCH_TIMEOUT_MS: '300' }).open(`${ports.origin}/slow-body`);
    expect(response.contentType).toBe('image/png');
    const error = await rejected(
      (async () => {
        for await (const chunk of response.body) void chunk;
      })(),
    );
    expect(error.message).toMatch(/timed out after 300 ms/);
  });

  it('times out a download whose body stalls, and refuses a declared size over the cap', async () => {
    const started = Date.now();
    const error = await rejected(fetcher({ FETCH_TIMEOUT_MS: '300' }).download(`${ports.origin}/slow-body`));
    expect(error).toMatchObject({ codeName: 'FETCH_FAILED', retryable: true });
    expect(error.message).toBe(`Download of ${ports.origin}/slow-body timed out after 300 ms.`);
    expect(Date.now() - started).toBeLessThan(2000);
    const large = await rejected(fetcher().download(`${ports.origin}/declared-large`, { maxBytes: 4096 }));
    expect(large).toMatchObject({ codeName: 'FETCH_TOO_LARGE', retryable: false });
    expect(large.message).toMatch(/declares 5000 bytes, more than the limit of 4096 bytes/);
  });

  it('fails a body cut short by the server as such, retryable, in a download and in a stream', async () => {
    const message = `Download of ${ports.origin}/cut failed: the connection closed before the end of the body.`;
    const error = await rejected(fetcher().download(`${ports.origin}/cut`));
    expect(error).toMatchObject({ codeName: 'FETCH_FAILED', message, retryable: true });
    const response = await fetcher().open(`${ports.origin}/cut`);
    const streamed = await rejected(
      (async () => {
        for await (const chunk of response.body) void chunk;
      })(),
    );
    expect(streamed).toMatchObject({ codeName: 'FETCH_FAILED', message, retryable: true });
  });

  it('times out a connection whose TLS handshake never completes', async () => {
    // Accepts TCP but never answers the TLS ClientHello, so only the connect timeout can end the attempt.
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const fast = fetcher({ FETCH_CONNECT_TIMEOUT_MS: '100' });
      const url = `https://127.0.0.1:${port}/a.png`;
      const error = await rejected(fast.download(url));
      expect(error).toMatchObject({ codeName: 'FETCH_FAILED', message: unreachable(url), retryable: true });
      expect(logged.join('\n')).toMatch(/timed out after 100 ms/);
      expect(held).toHaveLength(1);
    } finally {
      held.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('fails with FETCH_FAILED when the connection is refused, telling the client no more than for a timeout', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await rejected(fetcher().download(`http://127.0.0.1:${port}/`));
    expect(error).toMatchObject({ codeName: 'FETCH_FAILED', retryable: true });
    expect(error.message).toBe(unreachable(`http://127.0.0.1:${port}/`));
    expect(logged.join('\n')).toMatch(/ECONNREFUSED/);
  });

  it('fails with FETCH_FAILED when the host does not resolve, with the same message', async () => {
    const error = await rejected(fetcher().download('http://nowhere.test/'));
    expect(error).toMatchObject({ codeName: 'FETCH_FAILED', message: unreachable('http://nowhere.test/') });
    expect(logged.join('\n')).toMatch(/ENOTFOUND nowhere\.test/);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = fetcher().download(`${ports.origin}/slow-headers`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejected(pending);
    expect(error.codeName).toBe('FETCH_FAILED');
    expect(error.message).toMatch(/was cancelled/);
  });
});
