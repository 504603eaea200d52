import { HttpException } from '@nestjs/common';
import { ErrorCodes } from './error-codes';
import { ServiceException } from './service.exception';

/** The contract's Error object. */
export interface ErrorBody {
  error_code: string;
  error_type: string;
  error_message: string;
  error_details: Record<string, unknown>;
}

export interface ErrorResponse {
  status: number;
  /** The JSON sent: the Error object, or `{detail: ErrorObject}` for 429. */
  body: ErrorBody | { detail: ErrorBody };
  headers: Record<string, string>;
  /** True when the cause is ours (5xx): it is logged with its stack, never sent. */
  internal: boolean;
}

/** Fastify's own errors (body parsing, limits) carry a code and a status. */
interface FrameworkError {
  code?: string;
  statusCode?: number;
  message?: string;
}

function fromFramework(error: FrameworkError): ServiceException | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ServiceException('MALFORMED_BODY');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceException('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceException('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ServiceException('BAD_REQUEST', 'The Content-Length header does not match the body.');
    case 'FST_ERR_BAD_URL':
      return new ServiceException('BAD_REQUEST', 'The request URL is malformed.');
    // Node's HTTP server: a request (headers, or headers and body) slower than the configured timeouts.
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ServiceException('REQUEST_TIMEOUT');
    case 'HPE_HEADER_OVERFLOW':
      return new ServiceException('HEADERS_TOO_LARGE');
  }
  // Node's HTTP parser (llhttp): a request that is not valid HTTP/1.1. Its message names the rule, not the bytes.
  if (error.code?.startsWith('HPE_')) {
    return new ServiceException('BAD_REQUEST', 'The request is not valid HTTP/1.1.');
  }
  if (error instanceof SyntaxError && (error as FrameworkError).statusCode === 400)
    return new ServiceException('MALFORMED_BODY');
  if (error.statusCode === 413) return new ServiceException('PAYLOAD_TOO_LARGE');
  if (error.statusCode === 415) return new ServiceException('UNSUPPORTED_MEDIA_TYPE');
  return undefined;
}

function fromHttpException(error: HttpException): ServiceException {
  // Nest wraps Fastify's own errors (body parsing, limits) in an HttpException with the cause.
  const framework =
    error.cause && typeof error.cause === 'object' ? fromFramework(error.cause as FrameworkError) : undefined;
  if (framework) return framework;
  const status = error.getStatus();
  switch (status) {
    case 404:
      return new ServiceException('ROUTE_NOT_FOUND');
    case 405:
      return new ServiceException('METHOD_NOT_ALLOWED');
    case 413:
      return new ServiceException('PAYLOAD_TOO_LARGE');
    case 415:
      return new ServiceException('UNSUPPORTED_MEDIA_TYPE');
    case 429:
      return new ServiceException('RATE_LIMITED');
    default:
      return status >= 400 && status < 500
        ? new ServiceException('BAD_REQUEST', error.message)
        : new ServiceException('INTERNAL');
  }
}

/**
 * Maps any thrown value to the status, body and headers the client receives. The only place
 * that decides what an error looks like on the wire; 5xx bodies carry the request id only.
 */
export function toErrorResponse(error: unknown, requestId: string): ErrorResponse {
  let exception: ServiceException | undefined;
  if (error instanceof ServiceException) exception = error;
  else if (error instanceof HttpException) exception = fromHttpException(error);
  else if (error && typeof error === 'object') exception = fromFramework(error as FrameworkError);

  if (!exception || exception.status >= 500) {
    const definition = exception?.definition ?? ErrorCodes.INTERNAL;
    const message =
      exception && exception.codeName !== 'INTERNAL'
        ? exception.message
        : `Internal error. Quote request id ${requestId} when reporting it.`;
    return {
      status: definition.status,
      body: {
        error_code: definition.code,
        error_type: definition.type,
        error_message: message,
        error_details: { request_id: requestId, ...(exception?.codeName === 'INTERNAL' ? {} : exception?.details) },
      },
      headers: exception?.headers ?? {},
      internal: !exception || exception.codeName === 'INTERNAL',
    };
  }
  const body: ErrorBody = {
    error_code: exception.definition.code,
    error_type: exception.definition.type,
    error_message: exception.message,
    error_details: exception.details,
  };
  return {
    status: exception.status,
    // The contract wraps every 429, whichever limit refused the request.
    body: exception.status === 429 ? { detail: body } : body,
    headers: exception.headers,
    internal: false,
  };
}
