import { createServer, type Server } from 'node:http';
import { METRICS_CONTENT_TYPE, metricsText } from './metrics';

/** The path of the exposition, on the metrics listener and (with METRICS_TOKEN) on the API port. */
export const METRICS_PATH = '/metrics';

/**
 * A listener of its own on `host:port` that serves `GET /metrics` and nothing else (404), so that the
 * exposition can be reached from the monitoring network only. Resolves once it listens; port 0 picks a free one.
 */
export async function startMetricsServer(host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    metricsText().then(
      (text) => response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics unavailable\n'),
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
