import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { ApiErrorResponse } from './api-errors.decorator';

/** Documents a 200 whose body is the envelope `{"data": T}` (or `{"data": T[]}`), plus the 422. */
export function ApiEnvelope(model: Type<unknown> | null, options: { isArray?: boolean; description?: string } = {}) {
  const data =
    model === null
      ? { type: 'object', nullable: true, example: null }
      : options.isArray
        ? { type: 'array', items: { $ref: getSchemaPath(model) } }
        : { $ref: getSchemaPath(model) };
  return applyDecorators(
    ...(model ? [ApiExtraModels(model)] : []),
    ApiOkResponse({
      description: options.description ?? 'Success.',
      schema: { type: 'object', required: ['data'], properties: { data } },
    }),
    ApiErrorResponse(['VALIDATION'], 'Validation failed: `error_details` maps each field path to its messages.'),
  );
}

/**
 * Documents a 200 whose body is an image of one of `mimeTypes` (raw, no envelope). Given as the response's own
 * content rather than with `@ApiProduces`, which would give the route's JSON error bodies an image type too.
 */
export function ApiImageResponse(description: string, mimeTypes: Iterable<string>) {
  const content = Object.fromEntries(
    [...new Set(mimeTypes)].map((mime) => [mime, { schema: { type: 'string', format: 'binary' } }]),
  );
  return ApiOkResponse({ description, content });
}
