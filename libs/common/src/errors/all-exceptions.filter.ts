import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ArgumentsHost, Catch, ExceptionFilter, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER } from '../http/request-id';
import { RouteRegistry } from '../http/route-registry';
import { loggedError } from '../logging/logged-error';
import { toErrorResponse, type ErrorResponse } from './error-response';
import { ServiceException } from './service.exception';

/**
 * What reading a request fails with when its client goes away before the request has arrived whole (a reset, or the
 * 408 of a body that stopped coming): the client's doing, not an internal error, and there is no one left to answer.
 */
const ABORTED = new ServiceException('BAD_REQUEST', 'The request was aborted before it arrived whole.');

/** The `error_code` each refused request was answered with, for its log line. */
const answeredCodes = new WeakMap<object, string>();

/** The `error_code` of the Error body a request was answered with, or undefined when none. */
export function answeredErrorCode(reply: FastifyReply): string | undefined {
  return answeredCodes.get(reply.raw);
}

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
    const cause = request.raw.readableAborted ? ABORTED : this.refineNotFound(error, request);
    const response = toErrorResponse(cause, request.id);
    this.log(cause, response, request.id);
    if (reply.sent) return;
    answeredCodes.set(reply.raw, errorCodeOf(response));
    void reply
      .status(response.status)
      .header(REQUEST_ID_HEADER, request.id)
      .headers(response.headers)
      .type('application/json')
      .send(response.body);
  }

  /**
   * Answers on the bare connection, for what Node's HTTP parser refuses before there is a request to reply to
   * (malformed requests, oversized headers, timeouts): a complete HTTP/1.1 response that closes the connection.
   * The socket is half-closed, not destroyed, so that the client reads the answer before the connection goes.
   */
  writeRaw(error: unknown, socket: Duplex, requestId: string): void {
    const response = toErrorResponse(error, requestId);
    this.log(error, response, requestId);
    const body = JSON.stringify(response.body);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      [REQUEST_ID_HEADER]: requestId,
      connection: 'close',
      ...response.headers,
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status]}\r\n${head.join('')}\r\n${body}`);
  }

  private log(cause: unknown, response: ErrorResponse, requestId: string): void {
    if (response.internal) {
      this.logger.error({ request_id: requestId, err: loggedError(cause) }, 'unhandled error');
    } else {
      this.logger.debug({ request_id: requestId, status: response.status }, 'request refused');
    }
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

/** The `error_code` of an Error body (429's is wrapped in `detail`). */
function errorCodeOf(response: ErrorResponse): string {
  return 'detail' in response.body ? response.body.detail.error_code : response.body.error_code;
}
