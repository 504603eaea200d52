import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenValidationErrors, isPlainObject, ServiceException, VALIDATION_ERROR_OPTIONS } from '@app/common';

export { isPlainObject };

export type DtoClass<T> = new () => T;

/**
 * Every problem found in one request, by dotted field path. Validation goes on after a problem so that one 422
 * lists them all; a member whose own value is invalid is simply not looked into further.
 */
export class Issues {
  readonly details: Record<string, string[]> = {};

  add(path: string, message: string): void {
    (this.details[path] ??= []).push(message);
  }

  merge(details: Record<string, string[]>): void {
    for (const [path, messages] of Object.entries(details)) for (const message of messages) this.add(path, message);
  }

  has(path?: string): boolean {
    if (path === undefined) return Object.keys(this.details).length > 0;
    return Object.keys(this.details).some((key) => key === path || key.startsWith(`${path}.`));
  }

  throwIfAny(): void {
    if (this.has()) throw ServiceException.validation(this.details);
  }
}

/** JSON `null` counts as absent, as an omitted member does. */
export function absent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

/** Drops members whose value is undefined, so that a normalised object holds only what is set. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}

/** `object[key]` when `object` is an object with that own member; lets rules across members read raw values safely. */
export function memberOf(object: unknown, key: string): unknown {
  return isPlainObject(object) && Object.hasOwn(object, key) ? object[key] : undefined;
}

/** `a` + `b` -> `a.b`; the top level has no prefix. */
export function pathOf(parent: string, member: string): string {
  return parent ? `${parent}.${member}` : member;
}

export interface ShapeOptions {
  /**
   * The union member the class stands for, so that a member of another variant is refused as "not a member of fit
   * type bounds" rather than as merely unknown.
   */
  variant?: string;
  /** Members of the object that the caller reads apart from the class: suggested for a misspelt member too. */
  alsoKnown?: readonly string[];
}

/**
 * Validates one object against its class, strictly (unknown members refused, first failing rule per member),
 * and records the problems under `path`. Returns the instance, or undefined when `raw` is not an object at all.
 */
export function validateShape<T extends object>(
  cls: DtoClass<T>,
  raw: unknown,
  path: string,
  issues: Issues,
  { variant, alsoKnown }: ShapeOptions = {},
): T | undefined {
  if (!isPlainObject(raw)) {
    issues.add(path, 'must be an object');
    return undefined;
  }
  const instance = plainToInstance(cls, raw, { enableImplicitConversion: false });
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    validationError: VALIDATION_ERROR_OPTIONS,
  });
  const unknownMember = variant ? (property: string) => `${property} is not a member of ${variant}` : undefined;
  issues.merge(flattenValidationErrors(errors, path, { unknownMember, alsoKnown }));
  return instance;
}

/**
 * Resolves an object union by its `type` member: the map names the one class per discriminator value, absent
 * `type` falls back to `fallback` (or is refused when there is none), and the chosen class validates the object.
 */
export function validateByType<K extends string, T extends object>(
  raw: Record<string, unknown>,
  path: string,
  classes: Record<K, DtoClass<T>>,
  issues: Issues,
  fallback?: K,
): { type: K; dto: T } | undefined {
  const type = memberOf(raw, 'type') ?? fallback;
  const known = Object.keys(classes);
  if (type === undefined || type === null) {
    issues.add(pathOf(path, 'type'), `type is required: one of ${known.join(', ')}`);
    return undefined;
  }
  if (typeof type !== 'string' || !known.includes(type)) {
    issues.add(pathOf(path, 'type'), `type must be one of the following values: ${known.join(', ')}`);
    return undefined;
  }
  const name = path.split('.').pop();
  const dto = validateShape(classes[type as K], raw, path, issues, { variant: `${name} type "${type}"` });
  return dto && !issues.has(path) ? { type: type as K, dto } : undefined;
}
