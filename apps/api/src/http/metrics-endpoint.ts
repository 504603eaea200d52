import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import {
  AppConfig,
  bearerValue,
  ErrorWriter,
  httpRequestDuration,
  METRICS_CONTENT_TYPE,
  METRICS_PATH,
  metricsText,
  metricsTokenCheck,
  ServiceException,
  startMetricsServer,
} from '@app/common';
import { hashKey } from '../auth/api-key.format';
import { clientAddress, type AddressLimiter } from '../rate-limit/address-limiter';

/**
 * Times every answered request into `atelier_http_request_duration_seconds`, labelled by the route pattern
 * (`/v1/tasks/:id`, never the raw URL: one series per route) or `unknown` for paths no route matched.
 * Scrapes of /metrics are left out, so that the exposition describes the traffic, not its own reading.
 */
export function recordRequestMetrics(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? 'unknown' : (request.routeOptions.url ?? 'unknown');
    if (route !== METRICS_PATH) {
      httpRequestDuration.observe(
        { method: request.method, route, status: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
    }
    done();
  });
}

/**
 * How this API serves its metrics, never to the public by default: with METRICS_TOKEN, `GET /metrics` on the
 * API port for `Authorization: Bearer <token>` (401 otherwise), under the failure budgets of an API key (the
 * client address's and the presented token's: 429 `AUTH_FAILURES_LIMITED` before the token is compared, except
 * for the token once accepted, as for a key recently seen valid); with METRICS_PORT, a listener of its own on
 * HOST:METRICS_PORT (the token required there too when set), started when the API is ready and closed with it.
 * Neither: /metrics answers 404. The route is Fastify's own, outside Nest's controllers, so it is not in the
 * OpenAPI document.
 */
export function serveMetrics(
  fastify: FastifyInstance,
  config: AppConfig,
  errors: ErrorWriter,
  addresses: AddressLimiter,
): void {
  const { metricsToken, metricsPort } = config;
  if (metricsToken !== undefined) {
    const check = metricsTokenCheck(metricsToken);
    const expectedHash = hashKey(metricsToken);
    let accepted = false;
    fastify.route({
      method: 'GET',
      url: METRICS_PATH,
      // a probe to the request gate: scrapes do not spend the scraper's address budget of requests
      config: { atelierAccess: 'probe' },
      handler: async (request, reply) => {
        const given = bearerValue(request.headers.authorization);
        try {
          const hash = given === undefined ? undefined : hashKey(given);
          await addresses.admitAuthentication(
            clientAddress(request.ip),
            hash === undefined ? undefined : { hash, recentlyValid: accepted && hash === expectedHash },
          );
          const checked = check(request.headers.authorization);
          if (checked !== 'valid')
            throw new ServiceException(checked === 'missing' ? 'AUTH_REQUIRED' : 'AUTH_INVALID_KEY');
        } catch (error) {
          errors.write(error, request, reply);
          return reply;
        }
        accepted = true;
        return reply.type(METRICS_CONTENT_TYPE).send(await metricsText());
      },
    });
  }
  if (metricsPort !== 0) {
    let server: Server | undefined;
    fastify.addHook('onReady', async () => {
      server = await startMetricsServer(config.host, metricsPort, metricsToken);
    });
    fastify.addHook('onClose', async () => {
      const closing = server;
      if (!closing) return;
      closing.closeAllConnections();
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    });
  }
}
