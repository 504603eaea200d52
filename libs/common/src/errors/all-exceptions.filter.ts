import { ArgumentsHost, Catch, ExceptionFilter, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER } from '../http/request-id';
import { RouteRegistry } from '../http/route-registry';
import { loggedError } from '../logging/logged-error';
import { toErrorResponse } from './error-response';
import { ServiceException } from './service.exception';

/**
 * Turns a thrown value into the wire response. Used by the Nest filter (which also receives
 * Fastify's body-parsing errors and unknown routes) and by Fastify's `frameworkErrors` hook
 * (malformed URLs), so every error body is written here and nowhere else.
 */
export class ErrorWriter {
  constructor(
    private readonly logger: Logger,
    private readonly routes: RouteRegistry,
  ) {}

  write(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const cause = this.refineNotFound(error, request);
    const response = toErrorResponse(cause, request.id);
    if (response.internal) {
      this.logger.error({ request_id: request.id, err: loggedError(cause) }, 'unhandled error');
    } else {
      this.logger.debug({ request_id: request.id, status: response.status }, 'request refused');
    }
    if (reply.sent) return;
    void reply
      .status(response.status)
      .header(REQUEST_ID_HEADER, request.id)
      .headers(response.headers)
      .type('application/json')
      .send(response.body);
  }

  /** A route-level 404 for a path that exists under other methods is a 405. */
  private refineNotFound(error: unknown, request: FastifyRequest): unknown {
    if (!(error instanceof NotFoundException)) return error;
    const allowed = this.routes.allowedMethods(request.url);
    if (allowed.length === 0) return new ServiceException('ROUTE_NOT_FOUND');
    return new ServiceException(
      'METHOD_NOT_ALLOWED',
      `Method ${request.method} is not allowed here; allowed: ${allowed.join(', ')}.`,
      {},
      { allow: allowed.join(', ') },
    );
  }
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly writer: ErrorWriter) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.writer.write(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
