import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationTypes } from 'class-validator';
import { ServiceException } from '../errors/service.exception';
import { checkJsonBody } from './json-body';
import { declaredMembers, unknownMemberMessage } from './unknown-member';

/**
 * Objects with more unknown members than this get no suggestions: that is no typo, and it bounds the work a
 * hostile body can ask for.
 */
const MAX_SUGGESTED = 20;

/**
 * What class-validator keeps on its errors: the `target`, whose class names the known members of an object with an
 * unknown one (see flattenValidationErrors), and never the `value`, which may be a secret.
 */
export const VALIDATION_ERROR_OPTIONS = { target: true, value: false } as const;

export interface FlattenOptions {
  /**
   * How an unknown member of the validated object itself (not of objects nested in it) is named in its message:
   * a union variant says which variant it is not a member of. Default `unknown member`.
   */
  unknownMember?: (property: string) => string;
  /**
   * Members of the validated object itself that its caller checks apart from the class (a task's `webhook_url`):
   * offered in suggestions beside the class's own.
   */
  alsoKnown?: readonly string[];
}

/**
 * Flattens class-validator's tree into `dotted.path -> messages`, the contract's error_details. An unknown member
 * is named with the closest member its object's class declares, when one is close ({@link unknownMemberMessage});
 * the class comes from the error's `target`, so validate with `validationError.target` left on.
 */
export function flattenValidationErrors(
  errors: ValidationError[],
  parent = '',
  options: FlattenOptions = {},
): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  const unknown = errors.filter((error) => error.constraints?.[ValidationTypes.WHITELIST] !== undefined);
  const suggest = unknown.length <= MAX_SUGGESTED;
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      details[path] = Object.entries(error.constraints).map(([constraint, message]) => {
        if (constraint !== ValidationTypes.WHITELIST) return message;
        const known = suggest ? [...declaredMembers(error.target?.constructor), ...(options.alsoKnown ?? [])] : [];
        return unknownMemberMessage(error.property, known, options.unknownMember?.(error.property));
      });
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
    validationError: VALIDATION_ERROR_OPTIONS,
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
