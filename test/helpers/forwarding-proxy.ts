import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** A reverse proxy on 127.0.0.1 in front of one upstream. */
export interface ForwardingProxy {
  /** Base URL clients call, e.g. http://127.0.0.1:41234 */
  url: string;
  stop(): Promise<void>;
}

/**
 * A stand-in for the Caddy of docker-compose.yml (deploy/caddy/Caddyfile), doing what the service relies on:
 * X-Forwarded-For is replaced by the address of the connection it received (whatever the client sent in it),
 * X-Forwarded-Proto says `https` (Caddy terminates TLS), X-Forwarded-Host and Host carry the client's Host, and
 * bodies stream through both ways.
 */
export async function startForwardingProxy(upstream: string): Promise<ForwardingProxy> {
  const target = new URL(upstream);
  const server = createServer((incoming, outgoing) => {
    const headers: IncomingHttpHeaders = {
      ...incoming.headers,
      'x-forwarded-for': incoming.socket.remoteAddress,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': incoming.headers.host,
    };
    const forwarded = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
