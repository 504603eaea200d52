import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
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

const servers: Server[] = [];
afterEach(async () => {
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
    const driver = new S3Driver({
      kind: 's3',
      bucket: 'b1b',
      prefix: '',
      endpoint: url,
      region: 'us-east-1',
      accessKey: 'AK',
      secretKey: 'SK',
      requestTimeoutMs: 300,
    });
    const started = Date.now();
    const error = await driver.head('a.jpg').catch((e: unknown) => e);
    expect(error).toMatchObject({ codeName: 'STORAGE_BACKEND_FAILED' });
    expect((error as Error).message).toMatch(/did not answer in time/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(seen.length).toBeGreaterThan(0);
    driver.close();
  });
});
