import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorCodes, ServiceException, toErrorResponse, type ErrorCodeName } from '@app/common';
import { ErrorBodyDto, RateLimitErrorDto } from './error-body.dto';

/** The request id the examples of 5xx bodies quote (a real body quotes the request's own). */
const EXAMPLE_REQUEST_ID = '7d0c5e2a-3b9f-4c61-8e2d-5a4f1b6c9e30';

/**
 * The body a client receives for a catalogue entry, written by `toErrorResponse` (the one writer of error bodies):
 * its code, type and default message, the 429 wrapped in `detail`, a 5xx quoting its request id.
 */
export function errorExample(name: ErrorCodeName): unknown {
  return toErrorResponse(new ServiceException(name), EXAMPLE_REQUEST_ID).body;
}

/**
 * Documents one error status of an operation with an example body per catalogue entry that answers it (Swagger UI
 * lists them by name). The status is the entries' own (they must agree); `description` says when it happens,
 * by default the first entry's message. Routes that send images describe them in their 200's own
 * `content` (not `@ApiProduces`, which would give these JSON bodies an image type).
 * @throws Error at start-up when the entries have different statuses.
 */
export function ApiErrorResponse(codes: readonly [ErrorCodeName, ...ErrorCodeName[]], description?: string) {
  const status = ErrorCodes[codes[0]].status;
  const stray = codes.filter((name) => ErrorCodes[name].status !== status);
  if (stray.length > 0) throw new Error(`ApiErrorResponse(${status}): ${stray.join(', ')} answer another status`);
  return ApiResponse({
    status,
    description: description ?? ErrorCodes[codes[0]].message,
    type: status === 429 ? RateLimitErrorDto : ErrorBodyDto,
    // Merged by name with the examples of another ApiErrorResponse of the same status on the same route.
    examples: Object.fromEntries(
      codes.map((name) => [
        name,
        { summary: `${ErrorCodes[name].code}: ${ErrorCodes[name].message}`, value: errorExample(name) },
      ]),
    ),
  });
}

/** Several {@link ApiErrorResponse}s, one per status, each `[codes, description?]`. */
export function ApiErrors(...responses: Parameters<typeof ApiErrorResponse>[]) {
  return applyDecorators(...responses.map((args) => ApiErrorResponse(...args)));
}
