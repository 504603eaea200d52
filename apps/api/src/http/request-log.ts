import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { answeredErrorCode, loggedError, METRICS_PATH } from '@app/common';
import { HEALTH_PATH } from '../health/health.controller';

/**
 * One log line per request, when it completes: method, route pattern (never the path or the query: a path can
 * hold a temporary result's unguessable name, a query a presigned signature), status, the Error body's code,
 * duration in milliseconds (one decimal), the key's id, the client address, and the request id (the logger's
 * child field). Health probes that pass are logged at debug: load balancers and orchestrators call them every few
 * seconds, and at info they made most of the log; so are scrapes of /metrics that pass. A failing probe stays at
 * info.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const fields = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      error_code: answeredErrorCode(reply) ?? null,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      key_id: request.principal?.keyId ?? null,
      client: loggedClient(request.ip),
    };
    if (error) {
      // A failure to write the response: described without its message, as every logged error is.
      reply.log.error({ ...fields, err: loggedError(error) }, 'request errored');
    } else if (isProbe(request) && reply.statusCode < 400) {
      reply.log.debug(fields, 'request completed');
    } else {
      reply.log.info(fields, 'request completed');
    }
  }
}

/**
 * The client's address as the per-address limits see it (the TCP peer, or with TRUST_PROXY the left-most
 * X-Forwarded-For entry), normalised (an IPv4-mapped IPv6 address as IPv4). A forwarded value that is not an IP
 * address is the client's own text: `invalid`, never the text itself.
 */
function loggedClient(ip: string): string {
  return ipaddr.isValid(ip) ? ipaddr.process(ip).toString() : 'invalid';
}

function isProbe(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return route === METRICS_PATH || (route?.startsWith(`/${HEALTH_PATH}/`) ?? false);
}
