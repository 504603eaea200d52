import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServiceException } from '@app/common';
import { S3Driver } from './s3.driver';

/** A loopback server that records requests and either answers 404 or never answers. */
async function recordingServer(answer: boolean): Promise<{ server: Server; url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    seen.push(request.headers);
    if (answer) response.writeHead(404).end();
  });
  server.on('connection', (socket: Socket) => sockets.add(socket));
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

/** A loopback store that answers every request with an S3 error document of this status and code. */
async function failingStore(status: number, code: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>m</Message></Error>`;
    response.writeHead(status, { 'content-type': 'application/xml' }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/** What a caller is told about a store that cannot be reached, whatever the reason. */
const unreachable = (endpoint: string) => `Could not reach ${endpoint}/, or it did not answer.`;

/** A driver with a key pair for the store at `endpoint`; `requestTimeoutMs` bounds each request. */
const keyedDriver = (endpoint: string, requestTimeoutMs?: number) =>
  new S3Driver({
    kind: 's3',
    bucket: 'b1b',
    prefix: '',
    endpoint,
    region: 'us-east-1',
    accessKey: 'AK',
    secretKey: 'SK',
    requestTimeoutMs,
  });

const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
});

describe('S3Driver', () => {
  it("never signs a user's storage with the service's own AWS credentials", async () => {
    const { server, url, seen } = await recordingServer(true);
    servers.push(server);
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'SERVICE_OWN_KEY_ID';
    process.env.AWS_SECRET_ACCESS_KEY = 'service-own-secret';
    try {
      const driver = new S3Driver({ kind: 's3', bucket: 'b1b', prefix: '', endpoint: url, region: 'us-east-1' });
      const error = await driver.check(2_000).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceException);
      expect(error).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', message: 'The storage has no credentials.' });
      expect(seen).toEqual([]);
      driver.close();
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });

  it('gives up on a store that accepts the connection and never answers', async () => {
    const { server, url, seen } = await recordingServer(false);
    servers.push(server);
    const driver = keyedDriver(url, 300);
    const started = Date.now();
    const error = await driver.head('a.jpg').catch((e: unknown) => e);
    expect(error).toMatchObject({ codeName: 'STORAGE_BACKEND_FAILED', message: unreachable(url) });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(seen.length).toBeGreaterThan(0);
    driver.close();
  });

  // Batch items are retried on `retryable`: a store that throttles or fails may answer next time, a refusal never.
  it.each([
    [503, 'SlowDown', 'STORAGE_BACKEND_FAILED', true],
    [500, 'InternalError', 'STORAGE_BACKEND_FAILED', true],
    [429, 'TooManyRequests', 'STORAGE_BACKEND_FAILED', true],
    [403, 'AccessDenied', 'STORAGE_UNREACHABLE', false],
    [400, 'InvalidRequest', 'STORAGE_UNREACHABLE', false],
    [404, 'NoSuchKey', 'STORAGE_OBJECT_NOT_FOUND', false],
  ])('reads an answer %i %s as %s, retryable %s', async (status, code, codeName, retryable) => {
    const { server, url } = await failingStore(status, code);
    servers.push(server);
    const driver = keyedDriver(url);
    const error = await driver.read('a.jpg').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceException);
    expect(error).toMatchObject({ codeName, retryable });
    driver.close();
  });

  it('tells the caller no more about a closed port than about a silent store; the log says which', async () => {
    const { server, url } = await recordingServer(false);
    await new Promise<void>((done) => server.close(() => done()));
    const logged: string[] = [];
    vi.spyOn(Logger.prototype, 'log').mockImplementation((message: unknown) => void logged.push(String(message)));
    const driver = keyedDriver(url);
    const error = await driver.head('a.jpg').catch((e: unknown) => e);
    expect(error).toMatchObject({ codeName: 'STORAGE_BACKEND_FAILED', message: unreachable(url), retryable: true });
    expect(logged.join('\n')).toMatch(/ECONNREFUSED/);
    driver.close();
  });
});
