import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ImageServer {
  /** Absolute URL of a path on this server, e.g. `url('/a.jpg')`. */
  url(path: string): string;
  /** Serves `body` at `path` (any content type; the service sniffs the bytes). */
  put(path: string, body: Buffer, contentType?: string): void;
  /**
   * Answers `path` with 200 and its headers (a `Content-Length` of `declared` bytes when given), then the
   * first bytes `head` when given, and then nothing more: an origin that stalls. Its sockets close at stop().
   */
  stall(path: string, options?: { declared?: number; head?: Buffer }): void;
  /** Answers the next `times` requests for `path` with `status` (503 by default), then as before: an origin that recovers. */
  fail(path: string, times: number, status?: number): void;
  /**
   * Holds the next requests for `path` (served as `put` gave it) until `release()`: `arrived` resolves when the
   * first one comes in, so a test can act while the downloader is waiting.
   */
  hold(path: string): { arrived: Promise<void>; release(): void };
  /** Requests received, by path. */
  hits: Map<string, number>;
  stop(): Promise<void>;
}

/** A static file server on 127.0.0.1 for inputs given by URL (tests allow it with FETCH_ALLOW_HOSTS=127.0.0.1). */
export async function startImageServer(): Promise<ImageServer> {
  const files = new Map<string, { body: Buffer; contentType: string }>();
  const stalls = new Map<string, { declared?: number; head?: Buffer }>();
  const hits = new Map<string, number>();
  const failures = new Map<string, { times: number; status: number }>();
  const holds = new Map<string, { arrive: () => void; released: Promise<void> }>();
  const server: Server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const held = holds.get(path);
    if (held) {
      held.arrive();
      await held.released;
    }
    const failure = failures.get(path);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      response.writeHead(failure.status).end('unavailable');
      return;
    }
    const stall = stalls.get(path);
    if (stall) {
      const length = stall.declared === undefined ? {} : { 'content-length': stall.declared };
      response.writeHead(200, { 'content-type': 'application/octet-stream', ...length });
      if (stall.head) response.write(stall.head);
      else response.flushHeaders();
      return;
    }
    const file = files.get(path);
    if (!file) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': file.contentType, 'content-length': file.body.length });
    response.end(file.body);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    put: (path, body, contentType = 'application/octet-stream') => files.set(path, { body, contentType }),
    stall: (path, options = {}) => stalls.set(path, options),
    fail: (path, times, status = 503) => failures.set(path, { times, status }),
    hold: (path) => {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.set(path, { arrive, released });
      return {
        arrived,
        release: () => {
          holds.delete(path);
          release();
        },
      };
    },
    hits,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
