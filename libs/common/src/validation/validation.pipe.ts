import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { ServiceException } from '../errors/service.exception';
import { checkJsonBody } from './json-body';

/** Flattens class-validator's tree into `dotted.path -> messages`, the contract's error_details. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      details[path] = Object.values(error.constraints).map((message) =>
        message.startsWith(`property ${error.property} should not exist`)
          ? 'unknown member; no other members are allowed'
          : message,
      );
    }
    Object.assign(details, flattenValidationErrors(error.children ?? [], path));
  }
  return details;
}

/**
 * The request validation of every route: unknown members refused, values transformed to their
 * DTO classes, and failures answered 422 with field paths.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  private readonly inner = new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => ServiceException.validation(flattenValidationErrors(errors)),
  });

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    // Bodies were checked as they were parsed (json-body.ts); a query string is flat, so only its names matter.
    if (metadata.type === 'query') checkJsonBody(value, Number.POSITIVE_INFINITY);
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) {
        throw ServiceException.validation({ body: ['must be a JSON object'] });
      }
    }
    return this.inner.transform(value, metadata);
  }
}
