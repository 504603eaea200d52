import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiUnprocessableEntityResponse, getSchemaPath } from '@nestjs/swagger';
import { ErrorBodyDto } from './error-body.dto';

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
    ApiUnprocessableEntityResponse({ description: 'Validation failed.', type: ErrorBodyDto }),
  );
}
