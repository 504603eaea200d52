import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { METRICS_CONTENT_TYPE, metricsText } from './metrics';

/** The path of the exposition, on the metrics listener and (with METRICS_TOKEN) on the API port. */
export const METRICS_PATH = '/metrics';
/**
 * The metrics listener's readiness probe, never behind the token (an orchestrator's probe sends no secret):
 * 200 once the exposition can be made (for a worker, the queue's depth read from Redis), else 503; no content.
 */
export const METRICS_READY_PATH = '/health/ready';

/**
 * A listener of its own on `host:port` that serves `GET /metrics` and its readiness probe, nothing else (404),
 * so that the exposition can be reached from the monitoring network only. With `token` (METRICS_TOKEN),
 * `/metrics` answers only `Authorization: Bearer <token>` (401 otherwise), as on the API port: the cluster's
 * other pods reach the port too. Resolves once it listens; port 0 picks a free one.
 */
export async function startMetricsServer(host: string, port: number, token?: string): Promise<Server> {
  const check = token === undefined ? undefined : metricsTokenCheck(token);
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const known = path === METRICS_PATH || path === METRICS_READY_PATH;
    if (!known || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    if (path === METRICS_PATH && check) {
      if (check(request.headers.authorization) !== 'valid') {
        response
          .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
          .end('Send the metrics token (METRICS_TOKEN) as "Authorization: Bearer <token>".\n');
        return;
      }
    }
    metricsText().then(
      (text) =>
        path === METRICS_PATH
          ? response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text)
          : response.writeHead(200, { 'content-type': 'text/plain' }).end('ready\n'),
      () => response.writeHead(503, { 'content-type': 'text/plain' }).end('Metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * The one check of a metrics token in an Authorization header (`Bearer <token>`), on the API port and the
 * metrics listener: `missing` without a Bearer token. Digests are compared, in constant time whatever was sent.
 */
export function metricsTokenCheck(token: string): (authorization: string | undefined) => 'missing' | 'wrong' | 'valid' {
  const expected = digest(token);
  return (authorization) => {
    const given = bearerValue(authorization);
    if (given === undefined) return 'missing';
    return timingSafeEqual(digest(given), expected) ? 'valid' : 'wrong';
  };
}

/** The token of `Authorization: Bearer <token>`, scheme case-insensitive. */
export function bearerValue(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
